! ERROR STOP ends every image with its code (the job's exit status is 7),
! after the status queries answer. images: 3
program stop_test
  implicit none
  integer :: me
  integer, allocatable :: f(:), s(:)
  me = this_image()
  f = failed_images()
  s = stopped_images()
  if (me == 1) print '(a,i0,a,i0,a,i0)', 'failed ', size(f), ' stopped ', size(s), &
       ' status ', image_status(2)
  sync all
  if (me == 2) error stop 7
  sync all
  print '(a)', 'not reached'
end program
