! A coindexed reference to a component that is not allocated on that image
! (only image 1 allocates it): ALLOCATED says so, and a get of it ends the
! job with status 1 and a message naming the component's image (run.sh
! checks both), instead of reading whatever the descriptor holds. images: 2
program compbad
  implicit none
  type t
    integer, allocatable :: a(:)
  end type
  type(t) :: x[*]
  integer, allocatable :: r(:)
  if (this_image() == 1) allocate(x%a(4))
  sync all
  if (this_image() == 1) then
    print '(a,a)', merge('ok   ', 'FAIL ', .not. allocated(x[2]%a)), &
      'ALLOCATED of a component another image has not allocated'
    r = x[2]%a
    print '(a)', 'FAIL the get of an unallocated component went on'
  end if
  sync all
end program
