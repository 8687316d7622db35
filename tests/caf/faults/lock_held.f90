! A fault test of the coarray LOCK (tests/integ/orphans.c, built by make
! tests where gfortran is): image 1 holds a lock and waits in dmsg (SYNC
! IMAGES with image 2, which never comes), every other image spins for the
! lock in LOCK, whose compare-and-swap is a CPU instruction on shm. The test
! kills dmsgrun at "lock_held: ready" with every image behind setsid: the
! LOCK loop itself must notice that the job is ending (dmsg_job_check).
! Not in tests/caf/run.sh (it never ends by itself).
program lock_held
    use iso_fortran_env, only: lock_type, error_unit
    implicit none
    type(lock_type) :: l[*]
    if (this_image() == 1) lock(l[1])
    sync all
    if (this_image() == 1) then
        write (error_unit, '(a)') 'lock_held: ready'
        flush (error_unit)
        sync images(2)
    else
        lock(l[1])
    end if
    error stop 'lock_held: the lock was taken, the job should have ended'
end program lock_held
