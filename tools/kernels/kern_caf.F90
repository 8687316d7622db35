! kern_caf.F90 - the transpose and SOR kernels of the A/B harness
! (docs/kernels.md) written with Fortran coarrays, as a coarray programmer
! would: the same source is built with dmsg-caf (libcaf_dmsg, variant
! caf-dmsg), with OpenCoarrays' caf over Open MPI (-DKERN_CAF_OC
! -DKERN_CAF_OMPI, variant caf-opencoarrays-ompi) and over MPICH
! (-DKERN_CAF_OC, variant caf-opencoarrays). tools/dmsg-ab runs them.
!
!   PROG KERNEL VARIANT N [STEPS [REPS]] [--nocompute] [--noalign]
!
! Like kern_main.c it verifies one untimed run against a serial reference,
! then times REPS repetitions of STEPS steps, and image 1 prints the line
! dmsg-ab reads (KERN kernel=... t_step=... comp= xfer= sync= pack= wait=
! bytes_pe= flops_pe= maxerr= ccpu= status=ok). t_step is the best
! repetition's slowest image; the split is the mean over the images.
!
! transpose: an N x N double-complex matrix in row blocks (a row is a
! contiguous column of the local array), B = transpose(A). Each image packs
! the transposed block every other image needs and puts it whole (one
! contiguous b x b block) into that image's receive slot, SYNC ALL, unpacks.
! Its variant VARIANT-sec (caf-dmsg-sec, caf-opencoarrays-ompi-sec,
! caf-opencoarrays-sec) leaves the transposition to the runtime: one
! transposing coindexed assignment per image, this one included,
! xs(rows of mine, :)[q] = transpose(xa(rows of q, :)), straight into the
! result (a coarray), no packing, no receive slot, no unpacking; the
! runtime gets a section with swapped strides on the source side and one
! with a stride of N on the destination side.
! sor: an N x N grid of doubles in row blocks with 4 ghost rows on each
! side, a weighted 5-point Jacobi relaxation; before each iteration the
! first and last 4 owned rows are put whole (contiguous) into the
! neighbours' ghost rows, then SYNC IMAGES with the neighbours. Two grids
! alternate, so one SYNC IMAGES per step suffices.
program kern_caf
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan
  implicit none
  integer, parameter :: dp = kind(1d0), i8 = selected_int_kind(18), W = 4
  real(dp), parameter :: OMEGA = 0.9_dp
  ! split of a PE's time: comp, xfer, sync, pack, wait (wall, and CPU of comp/wait)
  integer, parameter :: T_COMP = 1, T_XFER = 2, T_SYNC = 3, T_PACK = 4, T_WAIT = 5
#if defined(KERN_CAF_OMPI)
  character(len=*), parameter :: LIBVAR = 'caf-opencoarrays-ompi'
#elif defined(KERN_CAF_OC)
  character(len=*), parameter :: LIBVAR = 'caf-opencoarrays'
#else
  character(len=*), parameter :: LIBVAR = 'caf-dmsg'
#endif
  real(dp) :: tm(5), ctm(5)
  character(len=64) :: kernel, variant, transport
  character(len=256) :: arg
  integer :: n, steps, reps, npos, i, me, np, me0, b, r, st
  logical :: nocompute, noalign, ok, sec
  real(dp) :: wrong, bytes, flops, v(2), perpe(2), t, m, t0, c0, cc, parts(7)
  real(dp) :: best_t, best_ccpu, best_split(5), per
  real(dp), allocatable :: best(:)
  ! transpose
  complex(dp), allocatable :: xa(:,:), xb(:,:), pk(:,:)
  complex(dp), allocatable :: xr(:,:,:)[:], xs(:,:)[:]
  ! sor
  real(dp), allocatable :: g(:,:,:)[:]
  integer, allocatable :: nbrs(:)
  integer(i8) :: row0, iter

  me = this_image()
  np = num_images()
  me0 = me - 1
  nocompute = .false.
  noalign = .false.
  steps = 0
  reps = 5
  npos = 0
  kernel = ''
  variant = ''
  n = 0
  do i = 1, command_argument_count()
    call get_command_argument(i, arg)
    if (arg == '--nocompute') then
      nocompute = .true.
    else if (arg == '--noalign') then
      noalign = .true.
    else
      npos = npos + 1
      select case (npos)
      case (1)
        kernel = arg
      case (2)
        variant = arg
      case (3)
        read (arg, *, iostat=st) n
        if (st /= 0) n = 0
      case (4)
        read (arg, *, iostat=st) steps
        if (st /= 0) steps = 0
      case (5)
        read (arg, *, iostat=st) reps
        if (st /= 0) reps = 0
      end select
    end if
  end do
  if (npos < 3) then
    if (me == 1) write (0, '(a)') 'usage: PROG KERNEL VARIANT N [STEPS [REPS]] [--nocompute] [--noalign]'
    error stop 2
  end if
#if defined(KERN_CAF_OMPI)
  transport = 'openmpi'
#elif defined(KERN_CAF_OC)
  transport = 'mpich'
#else
  call get_environment_variable('DMSG_TRANSPORT', transport, status=st)
  if (st /= 0 .or. transport == '') transport = 'shm'
#endif
  sec = variant == LIBVAR // '-sec'
  if ((kernel /= 'transpose' .and. kernel /= 'sor') .or. (variant /= LIBVAR .and. .not. sec) .or. &
      (sec .and. kernel /= 'transpose')) then
    ! this cell of the matrix does not exist (dmsg-ab: NA)
    if (me == 1) print '(a,i0,a)', 'KERN kernel=' // trim(kernel) // ' variant=' // trim(variant) // &
                                   ' np=', np, ' status=unsupported'
    stop 3
  end if
  if (n <= 0 .or. mod(n, np) /= 0 .or. (kernel == 'sor' .and. n / np < W)) then
    if (me == 1) write (0, '(a,i0,a,i0)') 'kern_caf: N = ', n, &
                                          ' must be a multiple of the image count (sor: 4 rows an image) ', np
    error stop 2
  end if
  if (steps <= 0) then
    steps = 3
    if (kernel == 'sor') steps = 10
  end if
  if (reps <= 0 .or. reps > 100) reps = 5
  b = n / np

  ! ------------------------------------------------ set up and verify
  tm = 0
  ctm = 0
  if (kernel == 'transpose') then
    if (sec) then
      allocate (xa(n, b), xb(n, b), xs(n, b)[*])
      xs = cmplx(ieee_value(0.0_dp, ieee_quiet_nan), ieee_value(0.0_dp, ieee_quiet_nan), dp)
    else
      allocate (xa(n, b), xb(n, b), pk(b, b), xr(b, b, 0:np - 1)[*])
    end if
    do r = 1, b
      do i = 1, n
        xa(i, r) = f(int(me0 * b + r - 1, i8), int(i - 1, i8))
      end do
    end do
    xb = cmplx(ieee_value(0.0_dp, ieee_quiet_nan), ieee_value(0.0_dp, ieee_quiet_nan), dp)
    sync all
    call step()
    sync all
    if (sec) xb = xs
    wrong = 0
    do r = 1, b
      do i = 1, n
        if (xb(i, r) /= f(int(i - 1, i8), int(me0 * b + r - 1, i8))) wrong = wrong + 1
      end do
    end do
    bytes = real(b, dp) * b * 16 * (np - 1)
    flops = 0
  else
    allocate (g(n, 1 - W:b + W, 0:1)[*])
    row0 = int(me0, i8) * b
    if (me > 1 .and. me < np) then
      allocate (nbrs(2))
      nbrs = [me - 1, me + 1]
    else if (np == 1) then
      allocate (nbrs(0))
    else if (me > 1) then
      nbrs = [me - 1]
    else
      nbrs = [me + 1]
    end if
    call sor_init()
    sync all
    call sor_iterate(steps, .true.)
    sync all
    call sor_verify(wrong)
    bytes = real(merge(1, 0, me > 1) + merge(1, 0, me < np), dp) * W * n * 8
    flops = 7.0_dp * b * n
  end if
  ok = wrong == 0
  v = [merge(0.0_dp, 1.0_dp, ok), wrong]
  call co_max(v)
  perpe = [bytes, flops]
  call co_sum(perpe)
  bytes = perpe(1) / np
  flops = perpe(2) / np
  if (v(1) /= 0) then
    if (me == 1) then
      print '(a,i0,a,i0,a,es10.3)', 'KERN kernel=' // trim(kernel) // ' variant=' // trim(variant) // &
        ' transport=' // trim(transport) // ' np=', np, ' n=', n, ' status=wrong maxerr=', v(2)
      flush (6)
    end if
    write (0, '(a,i0,a)') 'kernel image ', me, ': ' // trim(kernel) // ' ' // trim(variant) // &
      ': result differs from the serial reference'
    error stop 1
  end if

  ! ------------------------------------------------ timed repetitions
  allocate (best(reps))
  best_t = 0
  best_ccpu = 0
  best_split = 0
  do r = 1, reps
    tm = 0
    ctm = 0
    sync all
    t0 = wtime()
    c0 = cputime()
    if (kernel == 'transpose') then
      do i = 1, steps
        call step()
      end do
    else
      call sor_iterate(steps, .not. nocompute)
    end if
    call align()
    t = wtime() - t0
    cc = cputime() - c0 - ctm(T_COMP) - ctm(T_WAIT)
    m = t
    call co_max(m)
    parts = [tm, 1.0_dp, cc]
    call co_sum(parts)
    best(r) = m / steps
    if (r == 1 .or. best(r) < best_t) then
      best_t = best(r)
      per = 1.0_dp / (parts(6) * steps)
      best_split = parts(1:5) * per
    end if
    cc = parts(7) / (real(np, dp) * steps)
    if (r == 1 .or. cc < best_ccpu) best_ccpu = cc
  end do
  call sort(best)
  if (me == 1) then
    write (6, '(a,i0,a,i0,a,i0,a,i0,14a)', advance='no') 'KERN kernel=' // trim(kernel) // ' variant=' // trim(variant) // &
      ' transport=' // trim(transport) // ' np=', np, ' n=', n, ' steps=', steps, ' reps=', reps, &
      ' t_step=', e(best_t), ' t_med=', e(best(reps / 2 + 1)), ' comp=', e(best_split(1)), &
      ' xfer=', e(best_split(2)), ' sync=', e(best_split(3)), ' pack=', e(best_split(4)), ' wait=', &
      e(best_split(5))
    print '(11a)', ' bytes_pe=', e(bytes), ' flops_pe=', e(flops), ' maxerr=', e(v(2)), ' ccpu=', &
      e(best_ccpu), ' status=ok'
    flush (6)
  end if
  sync all

contains

  ! A number as %.6e would print it.
  function e(x) result(s)
    real(dp), intent(in) :: x
    character(len=:), allocatable :: s
    character(len=32) :: buf
    write (buf, '(es14.6e2)') x
    s = trim(adjustl(buf))
  end function

  real(dp) function wtime()
    integer(i8) :: c, rate
    call system_clock(c, rate)
    wtime = real(c, dp) / real(rate, dp)
  end function

  real(dp) function cputime()
    real(dp) :: c
    call cpu_time(c)
    cputime = c
  end function

  ! The alignment barrier before each exchange (kern_align in kern_main.c).
  subroutine align()
    real(dp) :: a0, a1
    if (noalign) return
    a0 = wtime()
    a1 = cputime()
    sync all
    tm(T_WAIT) = tm(T_WAIT) + wtime() - a0
    ctm(T_WAIT) = ctm(T_WAIT) + cputime() - a1
  end subroutine

  subroutine sort(x)
    real(dp), intent(inout) :: x(:)
    integer :: j, k
    real(dp) :: y
    do j = 2, size(x)
      y = x(j)
      k = j - 1
      do while (k >= 1)
        if (x(k) <= y) exit
        x(k + 1) = x(k)
        k = k - 1
      end do
      x(k + 1) = y
    end do
  end subroutine

  ! A(i, j), 0-based: small integers, exact.
  complex(dp) function f(ii, jj)
    integer(i8), intent(in) :: ii, jj
    f = cmplx(real(ii * n + jj, dp), real(jj - ii, dp), dp)
  end function

  subroutine step()
    if (sec) then
      call xpose_sec_step()
    else
      call xpose_step()
    end if
  end subroutine

  ! A SYNC ALL whose time counts as the step's synchronization.
  subroutine timed_sync()
    real(dp) :: s0
    s0 = wtime()
    sync all
    tm(T_SYNC) = tm(T_SYNC) + wtime() - s0
  end subroutine

  ! One transpose by transposing coindexed assignments: the runtime moves
  ! each b x b block transposed, straight from xa into its place in the
  ! result xs of every image, this one's own included (the same statement:
  ! no special case for it).
  subroutine xpose_sec_step()
    integer :: k, q
    real(dp) :: s0
    call align()
    if (noalign) then ! nobody reads xs during a step; as xpose_step
      call timed_sync()
    end if
    do k = 0, np - 1
      q = mod(me0 + k, np)
      s0 = wtime()
      xs(me0 * b + 1:me0 * b + b, :)[q + 1] = transpose(xa(q * b + 1:q * b + b, :))
      tm(T_XFER) = tm(T_XFER) + wtime() - s0
    end do
    call timed_sync()
  end subroutine

  ! One transpose: a transposed b x b block for every other image, each put
  ! whole into that image's slot xr(:, :, me0); my own block directly.
  subroutine xpose_step()
    integer :: k, q, p
    real(dp) :: s0
    call align()
    if (noalign) then ! the slots are free once every image has unpacked
      call timed_sync()
    end if
    do k = 1, np - 1
      q = mod(me0 + k, np)
      s0 = wtime()
      pk = transpose(xa(q * b + 1:q * b + b, :))
      tm(T_PACK) = tm(T_PACK) + wtime() - s0
      s0 = wtime()
      xr(:, :, me0)[q + 1] = pk
      tm(T_XFER) = tm(T_XFER) + wtime() - s0
    end do
    s0 = wtime()
    xb(me0 * b + 1:me0 * b + b, :) = transpose(xa(me0 * b + 1:me0 * b + b, :))
    tm(T_PACK) = tm(T_PACK) + wtime() - s0
    call timed_sync()
    s0 = wtime()
    do p = 0, np - 1
      if (p /= me0) xb(p * b + 1:p * b + b, :) = xr(:, :, p)
    end do
    tm(T_PACK) = tm(T_PACK) + wtime() - s0
  end subroutine

  ! Reproducible interior, fixed non-zero border (global row ii, column jj, 0-based).
  real(dp) function initial(ii, jj)
    integer(i8), intent(in) :: ii, jj
    integer(i8) :: h
    if (ii == 0) then
      initial = 1
    else if (ii == n - 1 .or. jj == 0 .or. jj == n - 1) then
      initial = real(ii + jj, dp) / real(2 * n, dp)
    else
      h = mod(ii * 7919_i8 + jj * 104729_i8 + ii * jj * 31_i8, 1000003_i8)
      initial = real(h, dp) / 1000003.0_dp
    end if
  end function

  ! One row of the sweep, shared by the parallel and the serial code so that
  ! both round identically.
  subroutine relax_row(x, c, up, down, ii)
    real(dp), intent(out) :: x(n)
    real(dp), intent(in) :: c(n), up(n), down(n)
    integer(i8), intent(in) :: ii
    integer :: j
    real(dp) :: s
    if (ii == 0 .or. ii == n - 1) then
      x = c
      return
    end if
    x(1) = c(1)
    do j = 2, n - 1
      s = 0.25_dp * (((up(j) + down(j)) + c(j - 1)) + c(j + 1))
      x(j) = (1.0_dp - OMEGA) * c(j) + OMEGA * s
    end do
    x(n) = c(n)
  end subroutine

  subroutine sor_init()
    integer :: rr, j
    g = 0
    do rr = 1, b
      do j = 1, n
        g(j, rr, 0) = initial(row0 + rr - 1, int(j - 1, i8))
      end do
    end do
    iter = 0
  end subroutine

  subroutine sor_iterate(nsteps, compute)
    integer, intent(in) :: nsteps
    logical, intent(in) :: compute
    integer :: s, par, rr
    real(dp) :: s0, c1
    do s = 1, nsteps
      par = int(mod(iter, 2_i8))
      call align()
      s0 = wtime()
      if (me > 1) g(:, b + 1:b + W, par)[me - 1] = g(:, 1:W, par)
      if (me < np) g(:, 1 - W:0, par)[me + 1] = g(:, b - W + 1:b, par)
      tm(T_XFER) = tm(T_XFER) + wtime() - s0
      s0 = wtime()
      sync images (nbrs)
      tm(T_SYNC) = tm(T_SYNC) + wtime() - s0
      iter = iter + 1
      if (.not. compute) cycle
      s0 = wtime()
      c1 = cputime()
      do rr = 1, b
        call relax_row(g(:, rr, 1 - par), g(:, rr, par), g(:, rr - 1, par), g(:, rr + 1, par), row0 + rr - 1)
      end do
      tm(T_COMP) = tm(T_COMP) + wtime() - s0
      ctm(T_COMP) = ctm(T_COMP) + cputime() - c1
    end do
  end subroutine

  ! Serial reference for my rows: the sweep over my rows and `steps` rows on
  ! each side (their domain of dependence), so every image checks itself.
  subroutine sor_verify(nwrong)
    real(dp), intent(out) :: nwrong
    real(dp), allocatable :: cur(:,:), nxt(:,:), tmp(:,:)
    integer(i8) :: lo, hi
    integer :: rows, rr, j, s
    lo = max(row0 - steps, 0_i8)
    hi = min(row0 + b + steps, int(n, i8))
    rows = int(hi - lo)
    allocate (cur(n, rows), nxt(n, rows))
    do rr = 1, rows
      do j = 1, n
        cur(j, rr) = initial(lo + rr - 1, int(j - 1, i8))
      end do
    end do
    do s = 1, steps
      nxt(:, 1) = cur(:, 1)
      nxt(:, rows) = cur(:, rows)
      do rr = 2, rows - 1
        call relax_row(nxt(:, rr), cur(:, rr), cur(:, rr - 1), cur(:, rr + 1), lo + rr - 1)
      end do
      call move_alloc(cur, tmp)
      call move_alloc(nxt, cur)
      call move_alloc(tmp, nxt)
    end do
    nwrong = 0
    do rr = 1, b
      do j = 1, n
        ! NaN counts too
        if (.not. (g(j, rr, int(mod(iter, 2_i8))) == cur(j, row0 - lo + rr))) nwrong = nwrong + 1
      end do
    end do
  end subroutine
end program
