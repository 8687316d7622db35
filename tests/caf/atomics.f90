! Atomic subroutines on integer and logical atomic kinds, local and remote:
! define, ref, add, and, or, xor, cas and the fetch_ forms. images: 4
program atomics
  use iso_fortran_env, only: atomic_int_kind, atomic_logical_kind
  implicit none
  integer(atomic_int_kind) :: c[*], b[*], old, v
  logical(atomic_logical_kind) :: flag[*]
  logical :: lv
  integer :: me, np, i
  me = this_image(); np = num_images()
  if (me == 1) then
    call atomic_define(c, 0)
    call atomic_define(b, 0)
    call atomic_define(flag, .false.)
  end if
  sync all
  do i = 1, 10
    call atomic_add(c[1], 1)
  end do
  call atomic_fetch_add(c[1], 100, old)
  call atomic_or(b[1], ishft(1, me - 1))
  sync all
  if (me == 1) then
    call atomic_ref(v, c[1])
    call check('atomic_add', v == 110 * np)
    call atomic_ref(v, b)
    call check('atomic_or', v == 2**np - 1)
  end if
  sync all
  call atomic_and(b[1], not(ishft(1, me - 1)))
  sync all
  call atomic_ref(v, b[1])
  call check('atomic_and', v == 0)
  sync all
  call atomic_fetch_xor(b[1], ishft(1, me), old)
  sync all
  call atomic_ref(v, b[1])
  call check('atomic_fetch_xor', v == 2**(np + 1) - 2)
  sync all
  call atomic_xor(b[1], ishft(1, me))
  call atomic_fetch_or(c[2], 0, old)
  call atomic_fetch_and(c[2], -1, old)
  sync all
  call atomic_ref(v, b[1])
  call check('atomic_xor', v == 0)
  ! exactly one image wins the compare-and-swap
  call atomic_cas(flag[1], lv, .false., .true.)
  call atomic_cas(c[1], old, 110 * np, -me)
  sync all
  call atomic_ref(v, c[1])
  call co_sum_int(merge(1, 0, old == 110 * np), i)
  call check('atomic_cas one winner', i == 1 .and. v < 0)
  call atomic_ref(lv, flag[1])
  call check('logical atomic_cas', lv)
  sync all
  if (me == 1) print '(a)', 'atomics: done'
contains
  subroutine co_sum_int(x, s)
    integer, intent(in) :: x
    integer, intent(out) :: s
    s = x
    call co_sum(s)
  end subroutine
  subroutine check(what, ok)
    character(*), intent(in) :: what
    logical, intent(in) :: ok
    print '(a,a,a)', what, ': ', merge('ok  ', 'FAIL', ok)
  end subroutine
end program
