! Image control: SYNC ALL, SYNC IMAGES (ring, star, all), SYNC MEMORY,
! LOCK/UNLOCK (with STAT and ACQUIRED_LOCK), CRITICAL, EVENT POST/WAIT/QUERY
! on scalars and arrays of events, UNTIL_COUNT. images: 4
program sync
  use iso_fortran_env, only: lock_type, event_type, stat_locked, stat_unlocked
  implicit none
  integer :: me, np, i, cnt, st, ring[*], star(8)[*], total[*], crit[*], hits(4)
  type(lock_type) :: lk[*], lks(3)[*]
  type(event_type) :: ev[*], evs(4)[*]
  logical :: got
  me = this_image(); np = num_images()

  ! ring: each image waits only for its left neighbour
  ring = 0
  sync all
  do i = 1, 3
    if (me > 1) sync images(me - 1)
    ring[mod(me, np) + 1] = ring + 1
    if (me < np) sync images(me + 1)
  end do
  sync all
  call check('sync images ring', ring >= 1)

  ! star: image 1 collects from every image, pairwise
  if (me == 1) then
    sync images(*)
    sync images(*)
    call check('sync images star', all(star(2:np) == [(10*i, i = 2, np)]))
  else
    sync images(1)
    star(me)[1] = 10 * me
    sync memory
    sync images(1)
  end if
  sync all

  ! lock protects a read-modify-write of a counter on image 1
  total = 0
  sync all
  do i = 1, 5
    lock(lk[1])
    total[1] = total[1] + 1
    unlock(lk[1])
  end do
  sync all
  call check('lock counter', total[1] == 5 * np)
  ! lock with acquired_lock, and stat codes
  if (me == 2) then
    lock(lks(2)[1])
    lock(lks(2)[1], stat=st)
    call check('stat_locked', st == stat_locked)
  end if
  sync all
  if (me == 1) then
    lock(lks(2), acquired_lock=got)
    call check('acquired_lock false', .not. got)
    lock(lks(3), acquired_lock=got)
    call check('acquired_lock true', got)
    unlock(lks(3))
  end if
  sync all
  if (me == 2) unlock(lks(2)[1])

  ! critical
  crit = 0
  sync all
  do i = 1, 3
    critical
      crit[1] = crit[1] + me
    end critical
  end do
  sync all
  call check('critical', crit[1] == 3 * np * (np + 1) / 2)

  ! events: every other image posts to image 1 twice; until_count
  if (me /= 1) then
    event post(ev[1])
    event post(ev[1])
    event post(evs(me)[1])
  else
    event wait(ev, until_count=2 * (np - 1))
    call event_query(ev, cnt)
    call check('event wait until_count', cnt == 0)
    do i = 2, np
      event wait(evs(i))
    end do
    hits = 0
    do i = 1, np
      call event_query(evs(i), hits(i))
    end do
    call check('event array', all(hits == 0))
  end if
  sync all
  if (me == 2) then
    event post(ev[3])
    event post(ev[3])
  end if
  sync all
  if (me == 3) then
    call event_query(ev, cnt)
    call check('event query', cnt == 2)
    event wait(ev)
    call event_query(ev, cnt)
    call check('event wait consumes one', cnt == 1)
  end if
  sync all
  if (me == 1) print '(a)', 'sync: done'
contains
  subroutine check(what, ok)
    character(*), intent(in) :: what
    logical, intent(in) :: ok
    print '(a,a,a)', what, ': ', merge('ok  ', 'FAIL', ok)
  end subroutine
end program
