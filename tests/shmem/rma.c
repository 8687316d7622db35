/* Every RMA routine and type: put, get, p, g, iput, iget, the _nbi forms,
 * put_signal (set and add), the sized forms (putmem, put8..put128), the
 * context forms and the C11 generic forms, into heap and static targets. */
#include "shtest.h"
#include <string.h>

#define N 16
static unsigned char s_buf[N * 16 * 2];
static uint64_t s_sig;

/* Puts then gets of type T between neighbours through dst (symmetric). */
#define TEST_TYPE(T, NAME)                                                                         \
    {                                                                                              \
        T *dst = (T *)s_buf, src[N], back[N], one;                                                 \
        for (int i = 0; i < N; i++)                                                                \
            src[i] = (T)(me * 3 + i + 1);                                                          \
        memset(s_buf, 0, sizeof s_buf);                                                            \
        shmem_barrier_all();                                                                       \
        shmem_##NAME##_put(dst, src, N / 2, right);                                                \
        shmem_##NAME##_put_nbi(dst + N / 2, src + N / 2, N / 2 - 1, right);                        \
        shmem_ctx_##NAME##_p(SHMEM_CTX_DEFAULT, dst + N - 1, src[N - 1], right);                   \
        shmem_quiet();                                                                             \
        shmem_barrier_all();                                                                       \
        int ok = 1;                                                                                \
        for (int i = 0; i < N; i++)                                                                \
            ok &= dst[i] == (T)(left * 3 + i + 1);                                                 \
        CHECK(ok && #NAME " put");                                                                 \
        shmem_##NAME##_get(back, dst, N / 2, right);                                               \
        shmem_##NAME##_get_nbi(back + N / 2, dst + N / 2, N / 2, right);                           \
        shmem_quiet();                                                                             \
        ok = 1;                                                                                    \
        for (int i = 0; i < N; i++)                                                                \
            ok &= back[i] == (T)(me * 3 + i + 1);                                                  \
        one = shmem_##NAME##_g(dst + 2, right);                                                    \
        CHECK(ok && one == (T)(me * 3 + 3) && #NAME " get");                                       \
        shmem_barrier_all();                                                                       \
        /* strided: every 2nd source element to every 3rd target element */                       \
        memset(s_buf, 0, sizeof s_buf);                                                            \
        shmem_barrier_all();                                                                       \
        shmem_##NAME##_iput(dst, src, 3, 2, N / 3, right);                                         \
        shmem_barrier_all();                                                                       \
        ok = 1;                                                                                    \
        for (int i = 0; i < N / 3; i++)                                                            \
            ok &= dst[3 * i] == (T)(left * 3 + 2 * i + 1);                                         \
        CHECK(ok && #NAME " iput");                                                                \
        memset(back, 0, sizeof back);                                                              \
        shmem_##NAME##_iget(back, dst, 2, 3, N / 3, right);                                        \
        ok = 1;                                                                                    \
        for (int i = 0; i < N / 3; i++)                                                            \
            ok &= back[2 * i] == (T)(me * 3 + 2 * i + 1);                                          \
        CHECK(ok && #NAME " iget");                                                                \
        shmem_barrier_all();                                                                       \
        /* put with signal: the data is there when the signal is */                                \
        s_sig = 0;                                                                                 \
        shmem_barrier_all();                                                                       \
        shmem_##NAME##_put_signal(dst, src, N, &s_sig, 5, SHMEM_SIGNAL_SET, right);                \
        shmem_##NAME##_put_signal_nbi(dst, src, N, &s_sig, 2, SHMEM_SIGNAL_ADD, right);            \
        CHECK(shmem_signal_wait_until(&s_sig, SHMEM_CMP_EQ, 7) == 7);                              \
        CHECK(dst[N - 1] == (T)(left * 3 + N));                                                    \
        shmem_barrier_all();                                                                       \
    }

int main(void)
{
    sht_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
    DMSG_SHMEM_RMA_TYPES(TEST_TYPE)

    /* sized forms on the heap: element k of size B bytes holds me + k */
    unsigned char *h = shmem_calloc(4 * N, 16), src[16 * N], back[16 * N];
    for (int i = 0; i < 16 * N; i++)
        src[i] = (unsigned char)(me + i);
#define SIZED(B)                                                                                   \
    memset(h, 0, 16 * 4 * N);                                                                      \
    shmem_barrier_all();                                                                           \
    shmem_put##B(h, src, N, right);                                                                \
    shmem_put##B##_nbi(h + N * (B / 8), src, 1, right);                                            \
    shmem_barrier_all();                                                                           \
    CHECK(h[0] == (unsigned char)left && h[N * (B / 8) - 1] == (unsigned char)(left + N * (B / 8) - 1)); \
    shmem_get##B(back, h, N, right);                                                               \
    CHECK(back[N * (B / 8) - 1] == (unsigned char)(me + N * (B / 8) - 1));                         \
    shmem_iput##B(h, src, 2, 1, 2, right);                                                         \
    shmem_barrier_all();                                                                           \
    CHECK(h[2 * (B / 8)] == (unsigned char)(left + (B / 8)));                                      \
    shmem_iget##B(back, h, 1, 2, 2, right);                                                        \
    CHECK(back[B / 8] == (unsigned char)(me + (B / 8)));                                           \
    shmem_barrier_all();
    SIZED(8)
    SIZED(16)
    SIZED(32)
    SIZED(64)
    SIZED(128)
    memset(h, 0, 16 * 4 * N);
    shmem_barrier_all();
    shmem_putmem(h, src, 5, right);
    shmem_putmem_signal(h + 8, src, 3, &s_sig, 9, SHMEM_SIGNAL_SET, right);
    CHECK(shmem_signal_wait_until(&s_sig, SHMEM_CMP_EQ, 9) == 9 && h[10] == (unsigned char)(left + 2));
    CHECK(shmem_signal_fetch(&s_sig) == 9);
    shmem_getmem(back, h, 5, right);
    CHECK(back[4] == (unsigned char)(me + 4));
    shmem_putmem(h, src, 0, right); /* zero bytes: nothing */

    /* contexts: a team context numbers PEs in its team */
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0);
    static long s_l;
    shmem_ctx_long_p(ctx, &s_l, 40 + me, right);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    CHECK(s_l == 40 + left);
    shmem_ctx_destroy(ctx);
    /* on SHMEM_CTX_INVALID (a PE outside a context's team) these do nothing */
    shmem_ctx_quiet(SHMEM_CTX_INVALID);
    shmem_ctx_fence(SHMEM_CTX_INVALID);
    shmem_ctx_destroy(SHMEM_CTX_INVALID);
    shmem_team_t odd;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, n / 2, NULL, 0, &odd);
    if (odd != SHMEM_TEAM_INVALID) {
        CHECK(shmem_team_create_ctx(odd, 0, &ctx) == 0);
        shmem_team_t back_team;
        CHECK(shmem_ctx_get_team(ctx, &back_team) == 0 && back_team == odd);
        shmem_ctx_long_p(ctx, &s_l, 77, 0); /* team PE 0 = world PE 1 */
        shmem_ctx_quiet(ctx);
        shmem_ctx_destroy(ctx);
    }
    shmem_barrier_all();
    if (me == 1)
        CHECK(s_l == 77);
    shmem_barrier_all();

    /* C11 generic forms, with and without a context */
    static int s_i[4];
    int iv[4] = {me, me + 1, me + 2, me + 3}, ib[4];
    shmem_put(s_i, iv, 4, right);
    shmem_barrier_all();
    CHECK(s_i[3] == left + 3);
    shmem_get(ib, s_i, 4, right);
    CHECK(ib[0] == me);
    shmem_p(SHMEM_CTX_DEFAULT, &s_i[0], 99, right);
    shmem_barrier_all();
    CHECK(shmem_g(&s_i[0], me) == 99);
    double dd = 1.5;
    static double s_d;
    shmem_p(&s_d, dd, right);
    shmem_barrier_all();
    CHECK(s_d == 1.5);
    shmem_free(h);
    return sht_end("rma");
}
