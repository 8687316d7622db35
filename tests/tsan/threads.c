/* ThreadSanitizer check of what a threaded program may call from several
 * threads at once: dmsg's calls that need no PE (dmsg_strerror,
 * dmsg_adp_record_size), the copy engine and the machine descriptions.
 * They must keep no hidden shared state (no static scratch buffers). dmsg
 * itself starts no threads, and the PE calls are one thread's (dmsg.h), so
 * this is where ThreadSanitizer applies. Criterion's runner cannot run under
 * ThreadSanitizer, hence a plain program: exit 0 when every thread's
 * results are right; a race ends it through TSAN_OPTIONS=halt_on_error=1. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "dmsg.h"
#include "dmsg/model/machine.h"
#include "dmsg/xfer/xfer.h"

/* dmsg_machine_load with its detail (dmsg_last_error) copied into err. */
static dmsg_status load_machine(const char *name, dmsg_machine *m, char *err, size_t len)
{
    dmsg_status st = dmsg_machine_load(name, m);
    snprintf(err, len, "%s", st ? dmsg_last_error() : "");
    return st;
}

#define THREADS 4
#define N 64

static const char *const machines[] = {"t3d", "t3e-scap", "paragon", "iwarp"};
/* Each machine loaded once before the threads start: a parse that another
 * thread disturbs (shared tokenizer state) gives other values, which this
 * catches even without ThreadSanitizer. */
static dmsg_machine ref[4];

static int same_machine(const dmsg_machine *a, const dmsg_machine *b)
{
    return !strcmp(a->name, b->name) && a->clock_mhz == b->clock_mhz && a->nodes == b->nodes &&
           a->overhead_us == b->overhead_us && a->barrier_us == b->barrier_us &&
           a->send.n == b->send.n && a->send.mbs[0] == b->send.mbs[0] &&
           a->deposit.n == b->deposit.n && a->net_nd[0] == b->net_nd[0] &&
           a->mechanisms == b->mechanisms;
}

static void *work(void *arg)
{
    long id = (long)arg;
    double a[N * N], b[N * N];
    for (int i = 0; i < N * N; i++)
        a[i] = (double)(id * 100000 + i);
    dmsg_layout dl = {2, {N, N}, {N * sizeof(double), sizeof(double)}};
    dmsg_layout sl = {2, {N, N}, {sizeof(double), N * sizeof(double)}};
    dmsg_xfer_params xp = {.tile_bytes = 4096};
    for (int round = 0; round < 20; round++) {
        dmsg_copy_section((char *)b, &dl, (const char *)a, &sl, sizeof(double), &xp);
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                if (b[i * N + j] != a[j * N + i])
                    return (void *)1;
        if (strlen(dmsg_strerror(-(round % 17) - 1)) == 0 || dmsg_adp_record_size(8) == 0)
            return (void *)1;
        dmsg_machine m;
        char err[256];
        int k = (int)((id + round) % 4);
        if (load_machine(machines[k], &m, err, sizeof err) != DMSG_OK || !same_machine(&m, &ref[k]))
            return (void *)1;
    }
    return NULL;
}

int main(void)
{
    pthread_t t[THREADS];
    for (int k = 0; k < 4; k++) {
        char err[256];
        if (load_machine(machines[k], &ref[k], err, sizeof err) != DMSG_OK) {
            fprintf(stderr, "tsan threads: machine %s: %s\n", machines[k], err);
            return 1;
        }
    }
    for (long i = 0; i < THREADS; i++)
        if (pthread_create(&t[i], NULL, work, (void *)i) != 0) {
            perror("pthread_create");
            return 1;
        }
    int bad = 0;
    for (int i = 0; i < THREADS; i++) {
        void *r;
        pthread_join(t[i], &r);
        bad |= r != NULL;
    }
    printf("tsan threads: %s\n", bad ? "FAILED" : "ok");
    return bad;
}
