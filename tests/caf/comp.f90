! Allocatable components of derived-type coarrays (gfortran's _by_ref calls):
! each image allocates its components alone, with its own sizes, and the
! others get and put them: a whole component, a section of one, an element
! and a section of a 2-D one, an allocatable scalar, a component of an array
! element of the coarray, nested components (an allocatable derived-type
! component with its own allocatable array, an array of derived types with
! a static array), a vector subscript, kind conversion, a copy between two
! other images, ALLOCATED of a remote component, and DEALLOCATE and a new
! ALLOCATE of one image's component while the others keep theirs, and the
! component heap taking back what DEALLOCATE frees, and a get inside a
! team. images: 3
program comp
  use iso_fortran_env, only: team_type
  implicit none
  type inner
    real(8), allocatable :: d(:, :)
    integer :: b(4, 5)
  end type
  type t
    integer, allocatable :: a(:)
    integer, allocatable :: s
    type(inner), allocatable :: c
    type(inner), allocatable :: arr(:)
    integer :: k
    real(8), allocatable :: p(:), q(:), w(:)
  end type
  type(t) :: x[*]
  type(t), allocatable :: y(:)[:]
  integer, allocatable :: r(:)
  real(8), allocatable :: q(:, :)
  real(4), allocatable :: f(:)
  integer :: me, n, nx, i, j, v, it
  type(team_type) :: tm
  integer, parameter :: mib9 = 9 * 131072
  logical :: ok
  me = this_image()
  n = num_images()
  nx = mod(me, n) + 1
  ! sizes differ per image: nothing is symmetric about the components
  allocate(x%a(me * 4), x%s, x%c, x%arr(me + 1))
  allocate(x%c%d(3, me + 2))
  x%a = [(100 * me + i, i = 1, me * 4)]
  x%s = -me
  x%k = 7 * me
  do j = 1, me + 2
    do i = 1, 3
      x%c%d(i, j) = me * 1000 + 10 * i + j
    end do
  end do
  do i = 1, me + 1
    x%arr(i)%b = reshape([(me * 100 + 10 * i + j, j = 1, 20)], [4, 5])
  end do
  allocate(y(3)[*])
  do i = 1, 3
    allocate(y(i)%a(i + me))
    y(i)%a = 10 * me + i
  end do
  sync all

  ! get: whole component (the destination reallocated to its size)
  r = x[nx]%a
  call check(size(r) == nx * 4 .and. all(r == [(100 * nx + i, i = 1, nx * 4)]), &
             'get of a whole allocatable component')
  ! get: a strided section of a component
  r = x[nx]%a(2:nx * 4:2)
  call check(size(r) == nx * 2 .and. all(r == [(100 * nx + i, i = 2, nx * 4, 2)]), &
             'get of a section of a component')
  r = x[nx]%a(::2)
  call check(size(r) == nx * 2 .and. all(r == [(100 * nx + i, i = 1, nx * 4, 2)]), &
             'get of a full section with a stride (::2)')
  ! get: an element, a reversed section, a vector subscript
  v = x[nx]%a(3)
  call check(v == 100 * nx + 3, 'get of an element of a component')
  r = x[nx]%a(4:1:-1)
  call check(all(r == [(100 * nx + i, i = 4, 1, -1)]), 'get of a reversed section')
  r = x[nx]%a([4, 1, 3])
  call check(all(r == 100 * nx + [4, 1, 3]), 'get with a vector subscript')
  ! get: an allocatable scalar component, and a plain one beside it
  v = x[nx]%s
  call check(v == -nx, 'get of an allocatable scalar component')
  v = x[nx]%k
  call check(v == 7 * nx, 'get of a plain component')
  ! nested: an allocatable array in an allocatable derived-type component
  q = x[nx]%c%d
  ok = size(q, 1) == 3 .and. size(q, 2) == nx + 2
  if (ok) ok = q(2, 3) == nx * 1000 + 23 .and. q(3, nx + 2) == nx * 1000 + 30 + nx + 2
  call check(ok, 'get of a nested 2-D component')
  q = x[nx]%c%d(2:3, 1:nx + 2:2)
  ok = size(q, 1) == 2 .and. size(q, 2) == (nx + 3) / 2
  if (ok) ok = q(1, 1) == nx * 1000 + 21 .and. q(2, 2) == nx * 1000 + 33
  call check(ok, 'get of a 2-D section of a nested component')
  f = x[nx]%c%d(1, :)
  call check(size(f) == nx + 2 .and. all(f == [(real(nx * 1000 + 10 + j, 4), j = 1, nx + 2)]), &
             'get of a row of a nested component with kind conversion')
  ! a static array in an element of an allocatable array of derived types
  v = x[nx]%arr(nx + 1)%b(2, 3)
  call check(v == nx * 100 + 10 * (nx + 1) + 10, 'get of an element of a static array in an array element')
  r = x[nx]%arr(2)%b(:, 4)
  call check(all(r == [(nx * 100 + 20 + j, j = 13, 16)]), 'get of a column of a static array component')
  r = x[nx]%arr(1)%b(3, :)
  call check(all(r == [(nx * 100 + 10 + j, j = 3, 20, 4)]), 'get of a row of a static array component')
  ! a component of an array element of an allocatable coarray
  r = y(2)[nx]%a
  call check(size(r) == 2 + nx .and. all(r == 10 * nx + 2), 'get of a component of a coarray element')
  ! ALLOCATED of another image's components
  call check(allocated(x[nx]%a) .and. allocated(x[nx]%c%d) .and. allocated(x[nx]%s), &
             'ALLOCATED of allocated remote components')
  sync all

  ! put: into a section, an element, a whole component, a scalar, nested
  x[nx]%a(1:2) = [-1, -2]
  x[nx]%a(nx * 4) = -9
  x[nx]%s = 500 + me
  x[nx]%c%d(1, 1:2) = [0.5d0, 1.5d0]
  x[nx]%arr(1)%b(4, 5) = -7
  y(3)[nx]%a(1) = me
  x[nx]%a([3, 5]) = [33, 55]
  sync all
  ! the image before this one put into this image's components
  i = mod(me + n - 2, n) + 1
  ok = x%a(1) == -1 .and. x%a(2) == -2 .and. x%a(me * 4) == -9 .and. x%a(3) == 33
  if (me * 4 >= 5) ok = ok .and. x%a(5) == 55
  call check(ok, 'put into sections, elements and a vector of a component')
  call check(x%s == 500 + i, 'put into an allocatable scalar component')
  call check(x%c%d(1, 1) == 0.5d0 .and. x%c%d(1, 2) == 1.5d0 .and. x%c%d(2, 1) == me * 1000 + 21, &
             'put into a nested component')
  call check(x%arr(1)%b(4, 5) == -7 .and. x%arr(1)%b(3, 5) == me * 100 + 10 + 19, &
             'put into a static array in an array element')
  call check(y(3)%a(1) == i .and. all(y(3)%a(2:) == 10 * me + 3), 'put into a component of a coarray element')
  sync all

  ! between two other images: image 1 copies image 3's component to image 2
  if (me == 1) x[2]%a(1:4) = x[3]%a(6:9)
  sync all
  if (me == 2) call check(all(x%a(1:4) == [(300 + i, i = 6, 9)]), 'copy between components of two other images')
  if (me /= 2) call check(.true., 'copy between components of two other images')
  sync all

  ! one image deallocates and reallocates its component with another size
  if (me == 2) then
    deallocate(x%a, x%s)
    allocate(x%a(50))
    x%a = 2
  end if
  sync all
  if (me /= 2) then
    ok = .not. allocated(x[2]%s) .and. allocated(x[2]%a)
    r = x[2]%a
    call check(ok .and. size(r) == 50 .and. all(r == 2), 'a component reallocated on one image')
  else
    r = x[1]%a
    call check(size(r) == 4 .and. r(4) == -9, 'a component reallocated on one image')
  end if
  sync all

  ! the component heap (a quarter of the 128 MiB segment) gives back what
  ! DEALLOCATE frees: 200 rounds of 9 MiB are far more than it holds, and
  ! three 9 MiB blocks freed in the order middle, first, last merge into
  ! one that holds 27 MiB (nothing is written: no memory is touched)
  ok = .true.
  do it = 1, 200
    allocate(x%p(mib9), stat=i)
    ok = ok .and. i == 0
    if (i == 0) deallocate(x%p)
  end do
  call check(ok, 'the component heap takes back what DEALLOCATE frees')
  allocate(x%p(mib9), x%q(mib9), x%w(mib9), stat=i)
  ok = i == 0
  if (ok) deallocate(x%q, x%p, x%w)
  if (ok) allocate(x%p(3 * mib9), stat=i)
  call check(ok .and. i == 0, 'freed neighbours in the component heap merge')
  if (allocated(x%p)) deallocate(x%p)
  sync all

  ! inside a team, image numbers are the team's: images 1 and 3 form one
  ! team (its image 2 is image 3), image 2 the other
  form team (2 - mod(me, 2), tm)
  change team (tm)
    r = y(1)[num_images()]%a
    j = merge(3, 2, mod(me, 2) == 1)
    call check(size(r) == j + 1 .and. all(r == 10 * j + 1), 'get of a component inside CHANGE TEAM')
  end team
  sync all
  deallocate(y)
contains
  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(*), intent(in) :: what
    print '(a,a)', merge('ok   ', 'FAIL ', cond), what
  end subroutine
end program
