! Waits that involve an image that has stopped end with STAT_STOPPED_IMAGE
! instead of hanging: SYNC ALL inside a team, the collectives, ALLOCATE and
! DEALLOCATE of a coarray (nothing is allocated or freed then), LOCK of a
! lock that a stopped image holds, and EVENT WAIT that no running image can
! satisfy any more. Images 3 and 4 stop inside a team, image 2 when it is
! done, while image 1 waits for an event nobody posts. images: 4
program stopwait
  use, intrinsic :: iso_fortran_env, only: stat_stopped_image, event_type, lock_type, team_type
  implicit none
  type(event_type) :: ev[*]
  type(lock_type) :: lk[*]
  type(team_type) :: t
  integer :: me, st
  real(8) :: x
  real(8), allocatable :: a(:)[:], b(:)[:]
  character(len=4) :: c
  me = this_image()
  allocate (a(4)[*])
  form team (merge(1, 2, me <= 2), t)
  if (me == 4) lock (lk[1])
  sync all
  change team (t)
    if (me == 4) stop
    sync all (stat=st)
    if (me == 3) then
      call report('sync all in a team with a stopped image', st == stat_stopped_image)
      stop
    end if
    call report('sync all in a team of running images', st == 0)
  end team
  x = me
  call co_sum(x, stat=st)
  call report('co_sum', st == stat_stopped_image)
  call co_broadcast(x, 1, stat=st)
  call report('co_broadcast', st == stat_stopped_image)
  call co_max(x, stat=st)
  call report('co_max', st == stat_stopped_image)
  c = 'abcd'
  call co_min(c, result_image=1, stat=st)
  call report('co_min of character', st == stat_stopped_image)
  call co_reduce(x, radd, stat=st)
  call report('co_reduce', st == stat_stopped_image)
  allocate (b(8)[*], stat=st)
  call report('allocate', st == stat_stopped_image .and. .not. allocated(b))
  deallocate (a, stat=st)
  call report('deallocate', st == stat_stopped_image .and. allocated(a))
  if (me == 2) then
    lock (lk[1], stat=st)
    call report('lock held by a stopped image', st == stat_stopped_image)
  end if
  sync all (stat=st)
  call report('sync all', st == stat_stopped_image)
  if (me == 1) then
    ! image 2 ends next: then no image is left that could post
    event wait (ev, stat=st)
    call report('event wait nobody can post any more', st == stat_stopped_image)
  end if
contains
  pure function radd(p, q)
    real(8), intent(in) :: p, q
    real(8) :: radd
    radd = p + q
  end function
  subroutine report(what, ok)
    character(len=*), intent(in) :: what
    logical, intent(in) :: ok
    print '(a,a,a)', merge('ok   ', 'FAIL ', ok), what
  end subroutine
end program
