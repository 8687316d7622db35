! Waiting for an image that has stopped: SYNC IMAGES and SYNC ALL with a
! partner that executed STOP end with STAT_STOPPED_IMAGE instead of hanging,
! so do CO_SUM (on shm a world barrier) and EVENT POST and LOCK on its
! variables,
! the other images still synchronize among themselves and end normally, and
! a duplicate image in SYNC IMAGES is an error (not a stopped image) that
! synchronizes with nobody. images: 4
program stopped_test
  use, intrinsic :: iso_fortran_env, only: stat_stopped_image, event_type, lock_type
  implicit none
  type(event_type) :: ev[*]
  type(lock_type) :: lk[*]
  integer :: me, st
  real(8) :: x
  integer, allocatable :: s(:), others(:)
  me = this_image()
  if (me == 4) stop
  if (me == 3) then
    sync images (4, stat=st)
    call report('sync images with a stopped image', st == stat_stopped_image)
  end if
  sync all (stat=st)
  call report('sync all with a stopped image', st == stat_stopped_image)
  ! (on shm a world barrier that carries the values: the stopped image's
  ! barriers meet it)
  x = me
  call co_sum(x, stat=st)
  call report('co_sum with a stopped image', st == stat_stopped_image)
  if (me == 2) then
    event post (ev[4], stat=st)
    call report('event post to a stopped image', st == stat_stopped_image)
    lock (lk[4], stat=st)
    call report('lock on a stopped image', st == stat_stopped_image)
  end if
  if (me == 1) then
    sync images ([2, 2], stat=st)
    call report('duplicate image in sync images', st /= 0 .and. st /= stat_stopped_image)
  end if
  ! (before the running images pair up: after it, one of them may have ended)
  s = stopped_images()
  call report('stopped_images', size(s) == 1 .and. any(s == 4))
  deallocate (s) ! (LeakSanitizer: the main program's allocatables live to its end)
  ! (in a variable: gfortran 12 never frees the temporary of a PACK written
  ! in SYNC IMAGES, which LeakSanitizer reports)
  others = pack([1, 2, 3], [1, 2, 3] /= me)
  sync images (others, stat=st)
  deallocate (others)
  call report('sync images among the running images', st == 0)
contains
  subroutine report(what, ok)
    character(len=*), intent(in) :: what
    logical, intent(in) :: ok
    print '(a,a,a)', merge('ok   ', 'FAIL ', ok), what
  end subroutine
end program
