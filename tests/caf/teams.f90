! Teams: FORM TEAM, CHANGE TEAM, END TEAM, TEAM_NUMBER, GET_TEAM, image
! numbers, SYNC ALL, collectives and coindexed access inside a team. images: 4
program teams
  use iso_fortran_env, only: team_type
  implicit none
  type(team_type) :: half
  integer :: me, np, x[*], s, tn
  me = this_image(); np = num_images()
  x = me
  form team(2 - mod(me, 2), half)
  call check('team_number outside', team_number() == -1)
  change team(half)
    tn = team_number()
    call check('team_number', tn == 2 - mod(me, 2))
    call check('num_images in team', num_images() == np / 2)
    call check('this_image in team', this_image() == (me + 1) / 2)
    s = x
    call co_sum(s)
    call check('co_sum in team', s == merge(np * np / 4, np * (np + 2) / 4, mod(me, 2) == 1))
    sync all
    ! image 1 of the team is the team's first member
    s = x[1]
    call check('coindex in team', s == 2 - mod(me, 2))
    sync all
  end team
  call check('num_images after end team', num_images() == np)
  sync all
  if (me == 1) print '(a)', 'teams: done'
contains
  subroutine check(what, ok)
    character(*), intent(in) :: what
    logical, intent(in) :: ok
    print '(a,a,a)', what, ': ', merge('ok  ', 'FAIL', ok)
  end subroutine
end program
