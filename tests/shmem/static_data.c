/* Static data is symmetric: globals (initialized and BSS) and function
 * statics take puts, gets and atomics from peers; shmem_addr_accessible
 * says so; the brk heap and the stack are not symmetric. */
#include "shtest.h"
#include <string.h>

long g_bss[1000];
int g_data[5] = {1, 2, 3, 4, 5};
static double s_file = 2.5;
char g_big[1 << 20];

int main(void)
{
    static long s_func;
    sht_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n;
    CHECK(g_data[4] == 5 && s_file == 2.5); /* values survive the move */
    CHECK(shmem_addr_accessible(g_bss, right) && shmem_addr_accessible(&s_func, right));
    int local;
    CHECK(!shmem_addr_accessible(&local, right));
    char *heap = malloc(16);
    CHECK(!shmem_addr_accessible(heap, right));
    free(heap);
    shmem_barrier_all(); /* everyone has read its initial values */

    long v[1000];
    for (int i = 0; i < 1000; i++)
        v[i] = me * 1000 + i;
    shmem_long_put(g_bss, v, 1000, right);
    shmem_int_p(&g_data[0], 100 + me, right);
    shmem_double_p(&s_file, me + 0.5, right);
    memset(g_big, 0, sizeof g_big);
    shmem_barrier_all();
    g_big[sizeof g_big - 1] = (char)me;
    shmem_barrier_all();
    int left = (me + n - 1) % n;
    CHECK(g_bss[0] == left * 1000 && g_bss[999] == left * 1000 + 999);
    CHECK(g_data[0] == 100 + left && g_data[1] == 2);
    CHECK(s_file == left + 0.5);
    CHECK(shmem_char_g(&g_big[sizeof g_big - 1], right) == (char)right);
    shmem_long_atomic_add(&s_func, me + 1, 0);
    shmem_barrier_all();
    if (me == 0)
        CHECK(s_func == (long)n * (n + 1) / 2);
    CHECK(shmem_long_atomic_fetch(&s_func, 0) == (long)n * (n + 1) / 2);
    return sht_end("static_data");
}
