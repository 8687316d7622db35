! Collective subroutines: CO_BROADCAST, CO_SUM, CO_MIN, CO_MAX (integer,
! real, complex, character), RESULT_IMAGE, strided arguments, CO_REDUCE with
! value and reference arguments; reductions of 256 B to 64 KiB (split in
! one part per image) of every type, uneven lengths, back to back and
! across a change of team. images: 4
module coll_ops
  implicit none
contains
  pure function mult(a, b)
    integer, value :: a, b
    integer :: mult
    mult = a * b
  end function
  pure function radd(a, b)
    real(8), intent(in) :: a, b
    real(8) :: radd
    radd = a + b
  end function
end module

program coll
  use coll_ops
  use, intrinsic :: iso_fortran_env, only: team_type
  implicit none
  integer :: me, np, i, j, k, iv(5), im(3, 4)
  logical :: ok
  real(8) :: x1, x2
  integer, allocatable :: zv(:)
  integer(8) :: i8
  integer :: ib(10001), iw(3, 5000)
  real(4) :: rb(16384)
  complex(8) :: zb(4001)
  type(team_type) :: half
  real(8) :: r8(3), big(8192)
  real(4) :: r4
  complex(8) :: z
  character(len=6) :: s
  me = this_image(); np = num_images()
  iv = [(me * i, i = 1, 5)]
  call co_broadcast(iv, 2)
  call check('co_broadcast', all(iv == [(2 * i, i = 1, 5)]))
  s = 'img' // achar(48 + me)
  call co_broadcast(s, np)
  call check('co_broadcast character', s == 'img' // achar(48 + np))
  i8 = me
  call co_sum(i8)
  call check('co_sum integer(8)', i8 == np * (np + 1) / 2)
  big = me
  call co_sum(big)
  call check('co_sum 64 KiB', all(big == np * (np + 1) / 2))
  im = me
  call co_sum(im(2, :))
  call check('co_sum strided', all(im(2, :) == np * (np + 1) / 2) .and. all(im(1, :) == me))
  ! 256 B to 64 KiB: each image folds one part and fetches the others'
  ! (uneven lengths leave the last part short or empty)
  ib = [(me * i, i = 1, size(ib))]
  call co_sum(ib)
  call check('co_sum integer, 10001 elements', all(ib == [(i * np * (np + 1) / 2, i = 1, size(ib))]))
  rb = [(real(mod(me * 7 + i, 11), 4), i = 1, size(rb))]
  call co_max(rb)
  call check('co_max real(4), 64 KiB', all(rb == [(real(maxval([(mod(k * 7 + i, 11), k = 1, np)]), 4), &
                                                   i = 1, size(rb))]))
  rb = [(real(mod(me * 7 + i, 11), 4), i = 1, size(rb))]
  call co_min(rb)
  call check('co_min real(4), 64 KiB', all(rb == [(real(minval([(mod(k * 7 + i, 11), k = 1, np)]), 4), &
                                                   i = 1, size(rb))]))
  zb = [(cmplx(me, i, 8), i = 1, size(zb))]
  call co_sum(zb, result_image=1)
  if (me == 1) call check('co_sum complex(8), 64016 B, result_image', &
                          all(zb == [(cmplx(np * (np + 1) / 2, np * i, 8), i = 1, size(zb))]))
  iw = me
  call co_sum(iw(2, :))
  call check('co_sum strided, 20000 B', all(iw(2, :) == np * (np + 1) / 2) .and. all(iw(1, :) == me))
  ! back to back, and an image running ahead through a team of its own:
  ! none may change its values before the others have read them
  ok = .true.
  do k = 1, 100
    ib = me + k
    call co_sum(ib)
    ok = ok .and. all(ib == np * (np + 1) / 2 + np * k)
  end do
  form team (mod(me - 1, 2) + 1, half)
  do k = 1, 20
    ib = me * k
    call co_sum(ib)
    ok = ok .and. all(ib == k * np * (np + 1) / 2)
    change team (half)
      ib = me * k
      call co_sum(ib)
      ok = ok .and. all(ib == k * sum([(i, i = mod(me - 1, 2) + 1, np, 2)]))
      call co_sum(ib)
      ok = ok .and. all(ib == k * sum([(i, i = mod(me - 1, 2) + 1, np, 2)]) * num_images())
    end team
  end do
  call check('co_sum of 40 KiB back to back, in and out of teams', ok)
  ! the two teams make different numbers of them (the odd images' two, the
  ! even images' one), then all images one together
  ok = .true.
  do k = 1, 6
    change team (half)
      do j = 1, mod(me, 2) + 1
        ib = me * k + j
        call co_sum(ib)
        ok = ok .and. all(ib == sum([(i * k + j, i = mod(me - 1, 2) + 1, np, 2)]))
      end do
    end team
    ib = me + k
    call co_sum(ib)
    ok = ok .and. all(ib == np * (np + 1) / 2 + np * k)
  end do
  call check('co_sum of 40 KiB after teams that made different numbers of them', ok)
  r8 = [real(me, 8), -real(me, 8), 0.5d0 * me]
  call co_max(r8)
  call check('co_max real(8)', all(r8 == [real(np, 8), -1d0, 0.5d0 * np]))
  r4 = me
  call co_min(r4)
  call check('co_min real(4)', r4 == 1.0)
  z = cmplx(me, 1, 8)
  call co_sum(z, result_image=2)
  if (me == 2) call check('co_sum result_image', z == cmplx(np * (np + 1) / 2, np, 8))
  s = 'zz' // achar(96 + me)
  call co_max(s)
  call check('co_max character', s == 'zz' // achar(96 + np))
  s = 'zz' // achar(96 + me)
  call co_min(s)
  call check('co_min character', s == 'zza')
  ! back-to-back small reductions: an image that runs ahead must not
  ! overwrite values another image has not read yet (the gate's slots)
  ok = .true.
  do k = 1, 2000
    i8 = me * k
    call co_sum(i8)
    ok = ok .and. i8 == k * np * (np + 1) / 2
    r4 = mod(me + k, np)
    call co_max(r4)
    ok = ok .and. r4 == np - 1
  end do
  call check('co_sum and co_max 2000 times', ok)
  i = me
  call co_reduce(i, mult)
  call check('co_reduce by value', i == product([(i8, i8 = 1, np)]))
  r8 = me
  call co_reduce(r8, radd)
  call check('co_reduce by reference', all(r8 == np * (np + 1) / 2))
  ! zero-sized arguments move nothing (gfortran may pass no memory at all)
  ok = .true.
  zv = [integer ::]
  call co_sum(zv, stat=k)
  ok = ok .and. k == 0 .and. size(zv) == 0
  call co_broadcast(zv, 1, stat=k)
  ok = ok .and. k == 0
  call check('zero-sized co_sum and co_broadcast', ok)
  deallocate (zv)
  call in_image_order()
  call small_in_image_order()
  ! RANDOM_INIT: distinct across images or the same on all, repeatable or not
  call random_init(.true., .true.)
  call random_number(x1)
  call random_init(.true., .true.)
  call random_number(x2)
  call check('random_init repeatable', x1 == x2)
  call check('random_init repeatable, distinct', spread_of(x1) > 0)
  call random_init(.true., .false.)
  call random_number(x1)
  call check('random_init repeatable, the same on all', spread_of(x1) == 0)
  call random_init(.false., .false.)
  call random_number(x1)
  call check('random_init not repeatable, the same on all', spread_of(x1) == 0)
  call random_init(.false., .true.)
  call random_number(x1)
  call check('random_init not repeatable, distinct', spread_of(x1) > 0)
  sync all
  if (me == 1) print '(a)', 'coll: done'
contains
  ! CO_SUM, CO_MIN and CO_MAX of 1001 elements (past the gate's 256 bytes,
  ! not a multiple of 16 bytes) of values whose sum depends on the order:
  ! every image must get the fold in image order, bit for bit.
  subroutine in_image_order()
    integer, parameter :: n = 1001, xp = selected_real_kind(18)
    real(8) :: d(n), dref(n)
    real(4) :: f(n), fref(n)
    real(xp) :: q(n), qref(n)
    complex(4) :: c(n), cref(n)
    integer(1) :: b(n)
    integer(2) :: h(n)
    integer :: bref(n), j, kk
    logical :: good
    do j = 1, n
      d(j) = dval(me, j)
      dref(j) = dval(1, j)
      do kk = 2, np
        dref(j) = dref(j) + dval(kk, j)
      end do
    end do
    f = real(d, 4)
    fref = real(dval(1, [(j, j = 1, n)]), 4)
    q = real(d, xp) / 3
    qref = real(dval(1, [(j, j = 1, n)]), xp) / 3
    c = cmplx(f, -f, 4)
    cref = cmplx(fref, -fref, 4)
    do kk = 2, np
      fref = fref + real(dval(kk, [(j, j = 1, n)]), 4)
      qref = qref + real(dval(kk, [(j, j = 1, n)]), xp) / 3
      cref = cref + cmplx(real(dval(kk, [(j, j = 1, n)]), 4), -real(dval(kk, [(j, j = 1, n)]), 4), 4)
    end do
    call co_sum(d)
    call co_sum(f)
    call co_sum(q)
    call co_sum(c)
    good = all(d == dref) .and. all(f == fref) .and. all(q == qref) .and. all(c == cref)
    ! integers wrap
    b = int(modulo([(j * 37 + me * 101, j = 1, n)], 256) - 128, 1)
    h = int(modulo([(j * 9973 + me * 30011, j = 1, n)], 65536) - 32768, 2)
    call co_sum(b)
    call co_sum(h)
    bref = 0
    do kk = 1, np
      bref = bref + modulo([(j * 37 + kk * 101, j = 1, n)], 256) - 128
    end do
    good = good .and. all(int(b) == modulo(bref + 128, 256) - 128)
    bref = 0
    do kk = 1, np
      bref = bref + modulo([(j * 9973 + kk * 30011, j = 1, n)], 65536) - 32768
    end do
    good = good .and. all(int(h) == modulo(bref + 32768, 65536) - 32768)
    d = [(dval(me, j), j = 1, n)]
    dref = d
    call co_min(dref)
    call co_max(d)
    good = good .and. all(dref == [(minval([(dval(kk, j), kk = 1, np)]), j = 1, n)]) .and. &
           all(d == [(maxval([(dval(kk, j), kk = 1, np)]), j = 1, n)])
    call check('co_sum, co_min, co_max of 1001 elements of 7 kinds, in image order', good)
  end subroutine
  ! The same for 1 to 32 doubles and 3 real(xp) (up to 256 bytes: on shm
  ! one world barrier that carries every image's values), back to back.
  subroutine small_in_image_order()
    integer, parameter :: xp = selected_real_kind(18)
    real(8) :: d(32), dref(32)
    real(xp) :: q(3), qref(3)
    integer :: j, kk, m, rep
    logical :: good
    good = .true.
    do rep = 1, 50
      m = 1 + mod(rep * 7, 32)
      do j = 1, m
        d(j) = dval(me, j + rep)
        dref(j) = dval(1, j + rep)
        do kk = 2, np
          dref(j) = dref(j) + dval(kk, j + rep)
        end do
      end do
      call co_sum(d(1:m))
      good = good .and. all(d(1:m) == dref(1:m))
      q = real([(dval(me, j + rep), j = 1, 3)], xp) / 3
      qref = real([(dval(1, j + rep), j = 1, 3)], xp) / 3
      do kk = 2, np
        qref = qref + real([(dval(kk, j + rep), j = 1, 3)], xp) / 3
      end do
      call co_sum(q)
      good = good .and. all(q == qref)
    end do
    call check('co_sum of 1-32 doubles and 3 real(xp), in image order', good)
  end subroutine
  ! Magnitudes far apart, so that a sum in another order rounds otherwise.
  elemental real(8) function dval(k, j)
    integer, intent(in) :: k, j
    dval = (-1)**(k + j) * 10d0**mod(j * 5 + k * 3, 19) + k * 0.1d0 + j * 1d-3
  end function
  real(8) function spread_of(x)
    real(8), intent(in) :: x
    real(8) :: lo, hi
    lo = x; hi = x
    call co_min(lo)
    call co_max(hi)
    spread_of = hi - lo
  end function
  subroutine check(what, ok)
    character(*), intent(in) :: what
    logical, intent(in) :: ok
    print '(a,a,a)', what, ': ', merge('ok  ', 'FAIL', ok)
  end subroutine
end program
