! CO_BROADCAST of a derived type whose allocatable component is not
! allocated: gfortran broadcasts each component on its own and passes this
! one with no memory (a NULL base); nothing moves and nothing fails
! (OpenCoarrays' co_broadcast_allocatable_components does this). images: 2
program unalloc
  implicit none
  type zt
    integer, allocatable :: v(:)
    integer :: n = 0
  end type
  type(zt) :: a, b
  integer :: k
  a = zt(v=reshape([integer ::], [0]), n=this_image())
  b = a
  call co_broadcast(b, 1, stat=k)
  print '(a,a)', merge('ok   ', 'FAIL ', k == 0 .and. b%n == 1 .and. .not. allocated(b%v)), &
    'co_broadcast of an unallocated component'
end program
