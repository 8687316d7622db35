! caf_bench: coarray micro-benchmarks, the same source under any coarray
! runtime (dmsg-caf, or OpenCoarrays' caf): 8 B put and get latency from
! image 1 to image 2, a strided put of 1 MiB (every other double of 2 MiB),
! SYNC ALL, CO_SUM of 8 B and of 64 KiB. Prints one line per measurement
! (microseconds per operation, or MB/s). docs/coarrays.md has the ratios.
! Build: dmsg-caf -O2 caf_bench.f90 -o b && dmsg-cafrun -n 2 ./b
program caf_bench
  implicit none
  integer, parameter :: reps = 2000, big = 262144
  real(8) :: x[*], y, t0, t1, s8
  real(8), allocatable :: a(:)[:], v(:)
  integer :: me, i
  me = this_image()
  allocate(a(2 * big)[*], v(8192))
  a = 1
  sync all
  if (me == 1) then
    t0 = now()
    do i = 1, reps
      x[2] = real(i, 8)
    end do
    sync memory
    t1 = now()
    print '(a,f10.3,a)', 'put 8 B      ', (t1 - t0) / reps * 1d6, ' us'
    t0 = now()
    do i = 1, reps
      y = x[2]
    end do
    t1 = now()
    print '(a,f10.3,a)', 'get 8 B      ', (t1 - t0) / reps * 1d6, ' us'
    t0 = now()
    do i = 1, 20
      a(1:2 * big:2)[2] = a(1:big)
    end do
    sync memory
    t1 = now()
    print '(a,f10.1,a)', 'strided 1 MiB', 20 * 8d0 * big / (t1 - t0) / 1d6, ' MB/s'
  end if
  sync all
  t0 = now()
  do i = 1, reps
    sync all
  end do
  t1 = now()
  if (me == 1) print '(a,f10.3,a)', 'sync all     ', (t1 - t0) / reps * 1d6, ' us'
  t0 = now()
  do i = 1, reps
    s8 = i
    call co_sum(s8)
  end do
  t1 = now()
  if (me == 1) print '(a,f10.3,a)', 'co_sum 8 B   ', (t1 - t0) / reps * 1d6, ' us'
  v = me
  t0 = now()
  do i = 1, 200
    call co_sum(v)
  end do
  t1 = now()
  if (me == 1) print '(a,f10.3,a)', 'co_sum 64 KiB', (t1 - t0) / 200 * 1d6, ' us'
contains
  real(8) function now()
    integer(8) :: c, r
    call system_clock(c, r)
    now = real(c, 8) / real(r, 8)
  end function
end program
