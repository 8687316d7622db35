/* The transport record's registration check (registry.c): every record of
 * this build passes it, and records with a required slot missing, a
 * capability without its slot (or the reverse), or an extension half
 * filled are refused, each with a reason that names what is missing. */
#include <criterion/criterion.h>
#include <string.h>
#include "dmsg/core/amo.h" /* dmsg_amo_supported */
#include "dmsg/transport/transport.h"

/* Stubs: the check only looks at which slots are set. */
static dmsg_status st_init(dmsg_tp *tp, dmsg_boot *b)
{
    return DMSG_OK;
}
static void st_fin(dmsg_tp *tp) {}
static dmsg_status st_tp(dmsg_tp *tp)
{
    return DMSG_OK;
}
static dmsg_status st_gather(dmsg_tp *tp, const void *m, size_t l, void *a)
{
    return DMSG_OK;
}
static dmsg_status st_slot(dmsg_tp *tp, uint32_t s)
{
    return DMSG_OK;
}
static dmsg_status st_wait(dmsg_tp *tp, uint32_t s, int b, uint64_t n)
{
    return DMSG_OK;
}
static dmsg_status st_read(dmsg_tp *tp, uint32_t s, uint64_t *m, uint64_t *b)
{
    return DMSG_OK;
}
static dmsg_status st_put(dmsg_tp *tp, const dmsg_op *op, uint32_t s)
{
    return DMSG_OK;
}
static dmsg_status st_get(dmsg_tp *tp, const dmsg_op *op)
{
    return DMSG_OK;
}
static dmsg_status st_get_nb(dmsg_tp *tp, const dmsg_op *op, dmsg_req *r)
{
    return DMSG_OK;
}
static dmsg_status st_test(dmsg_tp *tp, dmsg_req *r, int *d)
{
    return DMSG_OK;
}
static dmsg_status st_amo(dmsg_tp *tp, const dmsg_amo *a, int m, void *res, dmsg_req *r)
{
    return DMSG_OK;
}
static dmsg_status st_signal(dmsg_tp *tp, int pe, size_t o, uint64_t v, int add)
{
    return DMSG_OK;
}
static dmsg_status st_ww(dmsg_tp *tp, dmsg_tp_ready_fn f, const void *a, int once)
{
    return DMSG_OK;
}
static double st_wtime(dmsg_tp *tp)
{
    return 0;
}
static void st_times(dmsg_tp *tp, dmsg_times *t) {}
static dmsg_status st_work(dmsg_tp *tp, const dmsg_work *w)
{
    return DMSG_OK;
}
static const char *st_machine(dmsg_tp *tp)
{
    return "t3d";
}
static dmsg_status st_due(dmsg_tp *tp, uint32_t s, int b, uint64_t n, double *t)
{
    return DMSG_OK;
}
static dmsg_status st_empty(dmsg_tp *tp, uint32_t s, uint64_t n)
{
    return DMSG_OK;
}
static double st_horizon(dmsg_tp *tp)
{
    return 0;
}
static dmsg_status st_order(dmsg_tp *tp, double t)
{
    return DMSG_OK;
}

/* A complete record with every optional part; each test breaks one thing. */
static dmsg_tp_vtime_ops vt;
static dmsg_tp_ops ops;

static const void *ext_vtime(const char *name)
{
    return strcmp(name, DMSG_TP_EXT_VTIME) == 0 ? &vt : NULL;
}

static void *st_peer_seg(dmsg_tp *tp, int pe)
{
    return NULL;
}

static const void *ext_none(const char *name)
{
    return NULL;
}

static void full(void)
{
    vt = (dmsg_tp_vtime_ops){.wtime = st_wtime,
                             .times = st_times,
                             .work = st_work,
                             .machine = st_machine,
                             .ctr_due = st_due,
                             .ctr_wait_empty = st_empty,
                             .horizon = st_horizon,
                             .order_wait = st_order};
    ops = (dmsg_tp_ops){.name = "test",
                        .init = st_init,
                        .finalize = st_fin,
                        .barrier = st_tp,
                        .quiet = st_tp,
                        .allgather = st_gather,
                        .ctr_reset = st_slot,
                        .ctr_wait = st_wait,
                        .ctr_read = st_read,
                        .put = st_put,
                        .get = st_get,
                        .get_nb = st_get_nb,
                        .req_test = st_test,
                        .amo = st_amo,
                        .signal = st_signal,
                        .word_wait = st_ww,
                        .caps = DMSG_TP_CAP_AMO4 | DMSG_TP_CAP_AMO8 | DMSG_TP_CAP_SIGNAL |
                                DMSG_TP_CAP_WORD_WAIT | DMSG_TP_CAP_VTIME,
                        .ext = ext_vtime};
}

TestSuite(tp_check, .init = full);

/* The refusal's reason contains `what`. */
static void refused(const char *what)
{
    const char *why = dmsg_tp_incomplete(&ops);
    cr_assert_not_null(why, "an incomplete record was accepted (expected: %s)", what);
    cr_assert(strstr(why, what) != NULL, "reason \"%s\" does not name %s", why, what);
}

Test(tp_check, every_transport_of_this_build_passes)
{
    cr_assert_gt(dmsg_tp_count, 0);
    for (size_t i = 0; i < dmsg_tp_count; i++) {
        const char *why = dmsg_tp_incomplete(dmsg_tp_all[i]);
        cr_assert_null(why, "transport %s refused: %s", dmsg_tp_all[i]->name, why);
        cr_assert_eq(dmsg_tp_find(dmsg_tp_all[i]->name), dmsg_tp_all[i]);
    }
    cr_assert_null(dmsg_tp_find("no-such-transport"));
}

Test(tp_check, complete_records_pass)
{
    cr_assert_null(dmsg_tp_incomplete(&ops));
    /* The smallest record: required slots only, no capability, no extension. */
    ops.amo = NULL, ops.signal = NULL, ops.word_wait = NULL, ops.ext = NULL, ops.caps = 0;
    cr_assert_null(dmsg_tp_incomplete(&ops));
    /* A lookup that offers nothing is no extension. */
    ops.ext = ext_none;
    cr_assert_null(dmsg_tp_incomplete(&ops));
    /* Capabilities without slots of their own need nothing more. */
    ops.caps = DMSG_TP_CAP_PUT_DONE | DMSG_TP_CAP_ORDERED | DMSG_TP_CAP_ASYNC |
               DMSG_TP_CAP_REMOTE_CTR | DMSG_TP_CAP_PACK_MECH;
    cr_assert_null(dmsg_tp_incomplete(&ops));
}

Test(tp_check, required_slots)
{
    ops.name = NULL;
    refused("name");
    full();
    ops.name = "";
    refused("name");
    full();
    ops.init = NULL;
    refused("init");
    full();
    ops.finalize = NULL;
    refused("finalize");
    full();
    ops.barrier = NULL;
    refused("barrier");
    full();
    ops.quiet = NULL;
    refused("quiet");
    full();
    ops.allgather = NULL;
    refused("allgather");
    full();
    ops.ctr_reset = NULL;
    refused("ctr_reset");
    full();
    ops.ctr_wait = NULL;
    refused("ctr_wait");
    full();
    ops.ctr_read = NULL;
    refused("ctr_read");
    full();
    ops.put = NULL;
    refused("put");
    full();
    ops.get = NULL;
    refused("get");
    full();
    ops.get_nb = NULL;
    refused("get_nb");
    full();
    ops.req_test = NULL;
    refused("req_test");
}

Test(tp_check, capability_and_slot_agree)
{
    ops.amo = NULL; /* atomics promised, no slot */
    refused("amo");
    full();
    ops.caps &= ~(unsigned)(DMSG_TP_CAP_AMO4 | DMSG_TP_CAP_AMO8); /* a slot, nothing promised */
    refused("amo");
    full();
    ops.caps &= ~(unsigned)DMSG_TP_CAP_AMO8; /* 4-byte atomics alone still need the slot */
    ops.amo = NULL;
    refused("amo");
    full();
    ops.signal = NULL;
    refused("signal");
    full();
    ops.caps &= ~(unsigned)DMSG_TP_CAP_SIGNAL;
    refused("signal");
    full();
    ops.word_wait = NULL;
    refused("word_wait");
    full();
    ops.caps &= ~(unsigned)DMSG_TP_CAP_WORD_WAIT;
    refused("word_wait");
    full();
    ops.caps |= DMSG_TP_CAP_PEER_MAP; /* peers mapped, no way to find them */
    refused("peer_seg");
    full();
    ops.peer_seg = st_peer_seg; /* a slot, nothing promised */
    refused("peer_seg");
    ops.caps |= DMSG_TP_CAP_PEER_MAP;
    cr_assert_null(dmsg_tp_incomplete(&ops));
}

Test(tp_check, vtime_extension_whole_or_absent)
{
    ops.ext = NULL; /* virtual time promised, no extension */
    refused("vtime");
    full();
    ops.ext = ext_none;
    refused("vtime");
    full();
    ops.caps &= ~(unsigned)DMSG_TP_CAP_VTIME; /* an extension nobody is told of */
    refused("vtime");
    /* Each slot of the extension, one at a time: half a group is refused. */
    static const size_t slots[] = {
        offsetof(dmsg_tp_vtime_ops, wtime),   offsetof(dmsg_tp_vtime_ops, times),
        offsetof(dmsg_tp_vtime_ops, work),    offsetof(dmsg_tp_vtime_ops, machine),
        offsetof(dmsg_tp_vtime_ops, ctr_due), offsetof(dmsg_tp_vtime_ops, ctr_wait_empty),
        offsetof(dmsg_tp_vtime_ops, horizon), offsetof(dmsg_tp_vtime_ops, order_wait)};
    static const char *const names[] = {"wtime",   "times",          "work",    "machine",
                                        "ctr_due", "ctr_wait_empty", "horizon", "order_wait"};
    for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++) {
        full();
        void (*none)(void) = NULL;
        memcpy((char *)&vt + slots[i], &none, sizeof none);
        refused(names[i]);
    }
}

/* The core asks the word size's capability before an atomic reaches the
 * transport (dmsg/core/amo.c): a transport that claims only one size is
 * refused the other, with a detail naming the size and the transport.
 * Every transport of this build claims both, so the check is tested here. */
Test(tp_check, atomics_by_word_size)
{
    cr_assert_eq(dmsg_amo_supported(&ops, 4), DMSG_OK);
    cr_assert_eq(dmsg_amo_supported(&ops, 8), DMSG_OK);
    ops.caps &= ~(unsigned)DMSG_TP_CAP_AMO8;
    cr_assert_null(dmsg_tp_incomplete(&ops), "4-byte atomics alone make a complete record");
    cr_assert_eq(dmsg_amo_supported(&ops, 4), DMSG_OK);
    cr_assert_eq(dmsg_amo_supported(&ops, 8), DMSG_ERR_UNSUPPORTED);
    const char *why = dmsg_last_error();
    cr_assert(strstr(why, "8-byte") != NULL && strstr(why, "test") != NULL,
              "detail \"%s\" names neither the size nor the transport", why);
    full();
    ops.caps &= ~(unsigned)(DMSG_TP_CAP_AMO4 | DMSG_TP_CAP_AMO8);
    ops.amo = NULL;
    cr_assert_eq(dmsg_amo_supported(&ops, 4), DMSG_ERR_UNSUPPORTED);
    cr_assert_eq(dmsg_amo_supported(&ops, 8), DMSG_ERR_UNSUPPORTED);
}
