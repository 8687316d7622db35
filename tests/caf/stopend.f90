! Without STAT=, a wait that involves an image that has stopped ends the
! job with a message naming the statement and the image (exit status 1):
! the statement is chosen by the first argument (tests/caf/run.sh runs each
! and checks the message). Image 2 stops, image 1 waits for it.
! images: 2
program stopend
  use, intrinsic :: iso_fortran_env, only: event_type, team_type
  implicit none
  type(event_type) :: ev[*]
  type(team_type) :: t
  character(len=32) :: what
  integer :: me
  real(8) :: x
  real(8), allocatable :: a(:)[:], b(:)[:]
  me = this_image()
  call get_command_argument(1, what)
  form team (1, t)
  allocate (a(2)[*])
  x = me
  select case (what)
  case ('co_sum')
    if (me == 2) stop
    call co_sum(x)
  case ('allocate')
    if (me == 2) stop
    allocate (b(4)[*])
  case ('deallocate')
    if (me == 2) stop
    deallocate (a)
  case ('event_wait')
    if (me == 2) stop
    event wait (ev)
  case ('form_team')
    if (me == 2) stop
    form team (2, t)
  case ('change_team')
    if (me == 2) stop
    change team (t)
    end team
  case ('sync_all_in_team', 'sync_team', 'end_team')
    change team (t)
      if (me == 2) stop
      if (what == 'sync_all_in_team') sync all
      if (what == 'sync_team') sync team (t)
    end team
  case default
    print '(a)', 'unknown case: ' // trim(what)
    error stop 2
  end select
  print '(a)', 'FAIL ' // trim(what) // ' returned'
end program
