! The start-up barrier: the initial values of static coarrays are in place
! on every image before any image runs the program, so an image that reads
! its neighbours' at once sees them (gfortran stores them after registering
! the coarray, before main; without the barrier an early image reads the
! zeros of a neighbour still copying its 8 MiB). images: 8
program initval_test
  implicit none
  integer, parameter :: n = 1048576
  real(8) :: a(n)[*] = 7
  integer :: me, np, k, img, bad
  me = this_image()
  np = num_images()
  bad = 0
  do k = 1, np - 1
    img = mod(me - 1 + k, np) + 1
    if (a(n)[img] /= 7) bad = bad + 1
    if (a(1)[img] /= 7) bad = bad + 1
  end do
  if (any(a /= 7)) bad = bad + 1
  sync all
  if (me == 1) print '(a)', 'ok   initial values seen on every image'
  if (bad /= 0) print '(a,i0,a,i0)', 'FAIL image ', me, ' read zeros from neighbours: ', bad
end program
