! caf_bench: coarray micro-benchmarks, the same source under any coarray
! runtime (dmsg-caf, or OpenCoarrays' caf): 8 B put and get latency from
! image 1 to image 2, SYNC ALL, CO_SUM of 8 B and of 64 KiB, then strided
! puts of 1, 4 and 16 MiB (every other double of twice as much memory on
! image 2). Prints one line per measurement:
!   NAME VALUE UNIT          (us per operation, or MB/s)
! The strided sizes are bounded: a size whose predicted time (the previous
! size's, or for 1 MiB a probe of 8 KiB's, times the growth) exceeds BUDGET seconds (first argument, default
! 30) is not run and prints "NAME skipped (predicted N s > BUDGET s)".
! tools/caf-bench.sh runs it under both runtimes and prints the ratios.
! Build: dmsg-caf -O2 caf_bench.f90 -o b && dmsg-cafrun -n 2 ./b
program caf_bench
  implicit none
  integer, parameter :: reps = 2000, mib = 131072 ! doubles in 1 MiB
  real(8) :: x[*], y, t0, t1, s8, budget, last, pred
  real(8), allocatable :: a(:)[:], v(:), src(:)
  integer :: me, i, k, m, nrep, sizes(3), st, lastsz, ndone
  character(len=32) :: arg
  me = this_image()
  budget = 30
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *, iostat=st) budget
    if (st /= 0) budget = 30
  end if
  sizes = [1, 4, 16]
  allocate(a(2 * 16 * mib)[*], v(8192), src(16 * mib))
  a = 1
  src = 2
  x = 0
  sync all
  if (me == 1) then
    t0 = now()
    do i = 1, reps
      x[2] = real(i, 8)
    end do
    sync memory
    t1 = now()
    print '(a,f12.3,a)', 'put_8B      ', (t1 - t0) / reps * 1d6, ' us'
    t0 = now()
    do i = 1, reps
      y = x[2]
    end do
    t1 = now()
    print '(a,f12.3,a)', 'get_8B      ', (t1 - t0) / reps * 1d6, ' us'
  end if
  sync all
  ! image 2 checks that the puts reached it (OpenCoarrays' scalar put may not)
  if (me == 2) print '(a,l1)', 'put_8B_remote ', x == real(reps, 8)
  sync all
  t0 = now()
  do i = 1, reps
    sync all
  end do
  t1 = now()
  if (me == 1) print '(a,f12.3,a)', 'sync_all    ', (t1 - t0) / reps * 1d6, ' us'
  t0 = now()
  do i = 1, reps
    s8 = i
    call co_sum(s8)
  end do
  t1 = now()
  if (me == 1) print '(a,f12.3,a)', 'co_sum_8B   ', (t1 - t0) / reps * 1d6, ' us'
  v = me
  t0 = now()
  do i = 1, 200
    call co_sum(v)
  end do
  t1 = now()
  if (me == 1) print '(a,f12.3,a)', 'co_sum_64KiB', (t1 - t0) / 200 * 1d6, ' us'
  sync all
  ndone = 0
  if (me == 1) then
    ! a probe of 8 KiB predicts the first size (OpenCoarrays' strided puts
    ! go element by element: 1 MiB can take minutes on a loaded host)
    t0 = now()
    a(1:2048:2)[2] = src(1:1024)
    sync memory
    t1 = now()
    last = (t1 - t0) * 128
    lastsz = 1
    do k = 1, size(sizes)
      m = sizes(k) * mib
      pred = last * sizes(k) / lastsz
      if (pred > budget) then
        print '(a,i0,a,f0.1,a,f0.1,a)', 'strided_', sizes(k), 'MiB skipped (predicted ', pred, &
          ' s > ', budget, ' s)'
        cycle
      end if
      ! as many puts as fit in about a second, at least one
      nrep = 1
      if (pred > 0) nrep = max(1, min(20, int(1 / pred)))
      t0 = now()
      do i = 1, nrep
        a(1:2 * m:2)[2] = src(1:m)
      end do
      sync memory
      t1 = now()
      last = (t1 - t0) / nrep
      lastsz = sizes(k)
      ndone = k
      print '(a,i0,a,f12.3,a)', 'strided_', sizes(k), 'MiB ', 8d0 * m / last / 1d6, ' MB/s'
    end do
  end if
  sync all
  call co_max(ndone)
  ! the last element the probe or the 1 MiB put wrote, and the one after it
  m = 1024
  if (ndone > 0) m = mib
  if (me == 2) print '(a,l1)', 'strided_remote ', a(2 * m - 1) == 2 .and. a(2 * m) == 1
contains
  real(8) function now()
    integer(8) :: c, r
    call system_clock(c, r)
    now = real(c, 8) / real(r, 8)
  end function
end program
