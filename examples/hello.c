/*
 * hello.c - the smallest direct deposit program.
 *
 * Every PE deposits a greeting record straight into slot [me] of a symmetric
 * array on PE 0 and names a deposit counter; PE 0 awaits npes deposits and
 * prints the greetings in PE order. There is no receive call: the counter
 * alone tells PE 0 that all the records have landed.
 *
 *   dmsgrun -n 4 ./hello
 */
#include <dmsg.h>
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


typedef struct greeting {
    int pe;
    int npes;
    char text[56]; /* NUL-terminated */
} greeting;

static greeting make_greeting(int pe, int npes)
{
    greeting g = {.pe = pe, .npes = npes};
    snprintf(g.text, sizeof g.text, "Hello from PE %d of %d", pe, npes);
    return g;
}

/* PE 0 checks what landed before printing it: slot [pe] must hold exactly
 * the greeting that PE pe built. Returns the number of bad slots. */
static int print_greetings(const greeting *slots, int npes)
{
    int bad = 0;
    for (int pe = 0; pe < npes; pe++) {
        greeting want = make_greeting(pe, npes);
        const greeting *g = &slots[pe];
        if (g->pe != pe || g->npes != npes || memcmp(g->text, want.text, sizeof want.text) != 0) {
            fprintf(stderr, "slot %d: unexpected record (PE %d of %d)\n", pe, g->pe, g->npes);
            bad++;
            continue;
        }
        printf("%s\n", g->text);
    }
    return bad;
}

int main(void)
{
    CHECK(dmsg_init());
    int me = dmsg_pe();
    int npes = dmsg_npes();

    /* Symmetric: the same slots exist on every PE; only PE 0's are written.
     * dmsg_alloc and dmsg_ctr_create end with a barrier, which is the
     * clearance for the deposits below. */
    greeting *slots;
    dmsg_ctr arrived;
    CHECK(dmsg_alloc((size_t)npes * sizeof(greeting), (void **)&slots));
    CHECK(dmsg_ctr_create(&arrived));

    greeting mine = make_greeting(me, npes);
    CHECK(dmsg_deposit(&slots[me], &mine, sizeof mine, 0, arrived));

    int bad = 0;
    if (me == 0) {
        CHECK(dmsg_await(arrived, (uint64_t)npes));
        bad = print_greetings(slots, npes);
        printf("hello: %s, %d PEs, transport %s\n", bad ? "FAILED" : "OK", npes,
               dmsg_transport_name());
    }

    CHECK(dmsg_ctr_destroy(arrived));
    CHECK(dmsg_free(slots));
    CHECK(dmsg_finalize());
    return bad ? EXIT_FAILURE : EXIT_SUCCESS;
}
