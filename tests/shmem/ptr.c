/* shmem_ptr and SHMEM_TEAM_SHARED. Usage: ptr all|self, what the transport
 * gives: all = every PE's symmetric memory is load/store reachable (shm),
 * self = only the PE's own (ofi, sim). */
#include "shtest.h"
#include <stdint.h>
#include <string.h>

#define N 64
static long s_ring[N];   /* static data: an alias of the symmetric heap */
static int s_unused = 5; /* initialized data, never stored to through a pointer */

int main(int argc, char **argv)
{
    int all = argc > 1 && !strcmp(argv[1], "all");
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    long *heap = shmem_malloc(N * sizeof *heap);
    CHECK(heap != NULL);
    for (int i = 0; i < N; i++)
        heap[i] = s_ring[i] = -1;
    long local = 0;

    /* The PE itself: the address it was given, heap and static alike. */
    CHECK(shmem_ptr(heap, me) == heap);
    CHECK(shmem_ptr(&s_ring[3], me) == &s_ring[3]);
    /* Not symmetric, or no such PE: NULL. */
    CHECK(shmem_ptr(&local, me) == NULL);
    CHECK(shmem_ptr(&local, right) == NULL);
    CHECK(shmem_ptr(heap, n) == NULL && shmem_ptr(heap, -1) == NULL);
    shmem_barrier_all(); /* every PE's -1s are written before anyone stores */

    long *rh = shmem_ptr(heap, right), *rs = shmem_ptr(s_ring, right);
    int *ru = shmem_ptr(&s_unused, right);
    if (all || right == me) {
        CHECK(rh != NULL && rs != NULL && ru != NULL);
        if (rh && rs && ru) {
            CHECK(*ru == 5); /* the peer's initialized static data, loaded */
            for (int i = 0; i < N; i++) {
                rh[i] = 1000 * me + i; /* plain stores into the right PE's memory */
                rs[i] = 2000 * me + i;
            }
        }
    } else {
        CHECK(rh == NULL && rs == NULL && ru == NULL);
    }
    shmem_barrier_all(); /* the stores are visible at their targets after it */
    if (all || right == me) {
        for (int i = 0; i < N; i++) {
            CHECK(heap[i] == 1000 * left + i);
            CHECK(s_ring[i] == 2000 * left + i);
        }
    }

    shmem_barrier_all(); /* every check above is done before the puts below */
    /* A peer's put is visible through the pointer after a barrier. */
    shmem_long_p(&heap[0], 7 + me, left);
    shmem_barrier_all();
    CHECK(heap[0] == 7 + right);
    if (rh)
        CHECK(rh[0] == 7 + (right + 1) % n);

    /* SHMEM_TEAM_SHARED: the PEs shmem_ptr reaches, in world order. */
    int tn = shmem_team_n_pes(SHMEM_TEAM_SHARED), tme = shmem_team_my_pe(SHMEM_TEAM_SHARED);
    CHECK(tn == (all ? n : 1));
    CHECK(tme == (all ? me : 0));
    for (int p = 0; p < tn; p++) {
        int w = shmem_team_translate_pe(SHMEM_TEAM_SHARED, p, SHMEM_TEAM_WORLD);
        CHECK(w >= 0 && w < n && shmem_ptr(heap, w) != NULL);
        CHECK(shmem_team_ptr(SHMEM_TEAM_SHARED, heap, p) == shmem_ptr(heap, w));
    }
    CHECK(shmem_team_ptr(SHMEM_TEAM_SHARED, heap, tn) == NULL);
    CHECK(shmem_team_ptr(SHMEM_TEAM_WORLD, heap, right) == shmem_ptr(heap, right));
    shmem_barrier_all();
    shmem_free(heap);
    return sht_end("ptr");
}
