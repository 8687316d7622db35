! Coindexed puts and gets: scalars, ranks 1-7, strided and vector-subscripted
! sections on either side, image-to-image (sendget), kind conversion,
! character lengths and kinds, allocatable coarrays. images: 3
program xfer
  implicit none
  integer, parameter :: ck = selected_char_kind('ISO_10646')
  integer :: me, np, nb, i, j, k
  integer :: s[*], a1(20)[*], a2(6,5)[*], a3(4,3,2)[*], v(3)
  integer :: a7(2,2,2,2,2,2,3)[*], l7(2,2,2,2,2,2,3)
  integer(2) :: i2(8)[*]
  integer(8) :: i8(8)[*]
  real(4) :: r4(8)[*]
  real(8) :: r8(8)[*], tmp8(8)
  complex(8) :: z8(2)[*]
  complex(4) :: z4(2)
  logical :: lg(3)[*]
  character(len=8) :: c8[*]
  character(len=4) :: c4
  character(kind=ck, len=5) :: u5[*]
  real(8), allocatable :: al(:,:)[:]
  integer :: loc(20), loc2(6,5), al2(5,6)[*]
  integer :: ini(8)[*] = 5
  me = this_image(); np = num_images(); nb = mod(me, np) + 1

  ! initial values are in place on every image before any image starts
  ini(me)[1] = -me
  sync all
  if (me == 1) call check('initialized coarray', all(ini(2:np) == [(-i, i = 2, np)]) .and. ini(np + 1) == 5)

  ! scalars both ways
  s = -me
  sync all
  s[nb] = me
  sync all
  call check('scalar put', s == merge(np, me - 1, me == 1))
  sync all
  i = s[nb]
  call check('scalar get', i == me)

  ! rank 1, whole and strided, on either side
  a1 = [(100*me + i, i = 1, 20)]
  sync all
  loc = 0
  loc(1:20:2) = a1(2:20:2)[nb]
  call check('strided get', all(loc(1:20:2) == [(100*nb + i, i = 2, 20, 2)]) .and. all(loc(2:20:2) == 0))
  loc(20:1:-1) = a1(:)[nb]
  call check('reversed get', all(loc == [(100*nb + i, i = 20, 1, -1)]))
  sync all
  a1(1:10)[nb] = [(1000*me + i, i = 1, 10)]
  a1(19:11:-4)[nb] = [-1, -2, -3]
  sync all
  k = merge(np, me - 1, me == 1)
  call check('contiguous put', all(a1(1:10) == [(1000*k + i, i = 1, 10)]))
  call check('strided put', a1(19) == -1 .and. a1(15) == -2 .and. a1(11) == -3 .and. a1(12) == 100*me + 12)

  ! rank 2 sections, transposed shapes, scalar broadcast
  a2 = reshape([(10*me + i, i = 1, 30)], [6, 5])
  sync all
  loc2 = 0
  loc2(2:6:2, 1:5:2) = a2(1:3, 2:4)[nb]
  call check('2-D section get', all(loc2(2:6:2, 1:5:2) == reshape([(10*nb + i, i = 7, 9), &
       (10*nb + i, i = 13, 15), (10*nb + i, i = 19, 21)], [3, 3])))
  call check('2-D get keeps the rest', loc2(1, 1) == 0 .and. loc2(3, 2) == 0)
  sync all
  a2(1, :)[nb] = 7
  a2(2:3, 5)[nb] = a2(4, 1:2)
  sync all
  call check('2-D scalar broadcast put', all(a2(1, :) == 7))
  call check('2-D row to column put', a2(2, 5) == 10*k + 4 .and. a2(3, 5) == 10*k + 10)

  ! rank 3 and rank 7
  a3 = reshape([(me*1000 + i, i = 1, 24)], [4, 3, 2])
  a7 = reshape([(me*10000 + i, i = 1, 192)], shape(a7))
  sync all
  call check('3-D get', all(a3(2:4:2, :, 2)[nb] == reshape([(nb*1000 + 12 + 4*(j-1) + 2, &
       nb*1000 + 12 + 4*(j-1) + 4, j = 1, 3)], [2, 3])))
  l7 = a7(:,:,:,:,:,:,:)[nb]
  call check('7-D whole get', all(l7 == reshape([(nb*10000 + i, i = 1, 192)], shape(a7))))
  call check('7-D strided get', a7(2,1,2,1,2,1,3)[nb] == l7(2,1,2,1,2,1,3) .and. &
       sum(a7(1,:,1,:,1,:,2:3)[nb]) == sum(l7(1,:,1,:,1,:,2:3)))
  sync all
  a7(2,:,:,2,:,:,1)[nb] = -5
  sync all
  call check('7-D section put', all(a7(2,:,:,2,:,:,1) == -5) .and. all(a7(1,:,:,:,:,:,:) > 0))

  ! vector subscripts
  v = [5, 1, 3]
  sync all
  ! (gfortran 12 miscompiles a vector-subscripted coindexed reference inside
  ! an expression: it gathers from the local array; assigned alone it is right)
  loc(1:3) = a1(v)[nb]
  call check('vector get', all(loc(1:3) == [1000*me + 5, 1000*me + 1, 1000*me + 3]))
  tmp8 = 0
  sync all
  a2(v, 4)[nb] = [-10, -11, -12]
  sync all
  call check('vector put', a2(5, 4) == -10 .and. a2(1, 4) == -11 .and. a2(3, 4) == -12)

  ! kind conversion both ways
  i2 = int(me, 2); i8 = me; r4 = real(me); r8 = me
  sync all
  tmp8 = i2(:)[nb]
  sync all
  r8(1:4)[nb] = [1, 2, 3, 4]
  i8(1:8:2)[nb] = r4(1:4) * 2.5
  sync all
  call check('integer to real(8) put', all(r8(1:4) == [1d0, 2d0, 3d0, 4d0]))
  call check('real(4) to integer(8) put', all(i8(1:8:2) == int(k * 2.5, 8)))
  i2(1:3) = r8(2:4)[nb]
  call check('real(8) to integer(2) get', all(i2(1:3) == [2, 3, 4]) .and. all(tmp8 == real(nb, 8)))
  ! (a scalar complex source is miscompiled by gfortran 12: it passes the
  ! address of a local copy; an array section is right)
  z8 = cmplx(me, -me, 8)
  sync all
  z4 = z8(:)[nb]
  call check('complex(8) to complex(4) get', all(z4 == cmplx(nb, -nb, 4)))
  lg = .false.
  sync all
  lg(2)[nb] = .true.
  sync all
  call check('logical put', lg(2) .and. .not. lg(1))

  ! character: lengths and kinds
  c8 = 'abcdefgh'
  u5 = ck_'xxxxx'
  sync all
  c8[nb] = 'xy'
  u5[nb] = 'pq'
  sync all
  call check('character padded put', c8 == 'xy')
  call check('character kind 1 to 4 put', u5 == ck_'pq')
  c4 = c8[nb]
  call check('character truncated get', c4 == 'xy')

  ! puts to this image: straight from the source where the two share no
  ! byte (a transposing one), through a buffer where they overlap
  a2 = reshape([(100 * me + i, i = 1, 30)], [6, 5])
  al2(1:5, 1:6)[me] = transpose(a2)
  call check('transposing put to this image', all(al2(1:5, 1:6) == transpose(a2)))
  a1 = [(i, i = 1, 20)]
  a1(2:20)[me] = a1(1:19)
  call check('overlapping put to this image, shifted up', all(a1 == [1, (i, i = 1, 19)]))
  a1(1:19)[me] = a1(2:20)
  call check('overlapping put to this image, shifted down', all(a1 == [(i, i = 1, 19), 19]))
  a1(20:1:-1)[me] = a1
  call check('overlapping put to this image, reversed', all(a1 == [19, (i, i = 19, 1, -1)]))
  a2 = reshape([(i, i = 1, 30)], [6, 5])
  a2(1:5, :)[me] = a2(2:6, :)
  call check('overlapping 2-D put to this image', all(a2(1:5, :) == reshape([((i + 6 * (j - 1), i = 2, 6), j = 1, 5)], [5, 5])))
  sync all

  ! allocatable coarrays, image to image
  allocate(al(3, 4)[*])
  al = me
  sync all
  al(:, 2)[nb] = al(:, 1)[mod(nb, np) + 1]
  sync all
  call check('sendget between other images', all(al(:, 2) == mod(me, np) + 1) .and. all(al(:, 1) == me))
  deallocate(al)
  sync all
  if (me == 1) print '(a)', 'xfer: done'
contains
  subroutine check(what, ok)
    character(*), intent(in) :: what
    logical, intent(in) :: ok
    if (me == 1 .or. .not. ok) print '(a,a,a)', what, ': ', merge('ok  ', 'FAIL', ok)
  end subroutine
end program
