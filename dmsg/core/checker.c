/* The checker for well-synchronized programs (checker.h, docs/model.md). */
#include <dlfcn.h>
#include <link.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "dmsg/core/checker.h"
#include "dmsg/core/state.h"
#include "dmsg/transport/wait_policy.h"

/* Data records: what the issuing PE did to the target PE's bytes. Ordering
 * records: a counted deposit (its counter and payload), an await (its
 * counter, mode and need), a quiet. */
enum {
    CHK_DEPOSIT = 1,
    CHK_FETCH,
    CHK_LOCAL_READ,
    CHK_LOCAL_WRITE,
    CHK_CDEP,
    CHK_AWAIT,
    CHK_QUIET,
};
enum { CHK_F_PROG = 1, CHK_F_NB = 2, CHK_F_BYTES = 4 };

typedef struct chk_rec {
    /* Data: count runs of len bytes, the first at segment offset off, each
     * stride bytes after the previous (stride >= len when count > 1).
     * CDEP: len = payload bytes. AWAIT: off = the bytes or messages this
     * epoch's deposits must supply for the await to complete (signed). */
    uint64_t off, len, stride, count;
    uint64_t where;  /* the call's return address: an offset in the program when
                      * CHK_F_PROG, else the issuer's raw address */
    uint32_t seq;    /* the issuer's event number in the epoch (program order) */
    uint32_t call;   /* data: the entry point (chk_call); CDEP, AWAIT: counter slot */
    uint16_t target; /* the PE whose memory (or counter) it is */
    uint8_t kind, flags;
    uint32_t pad;
} chk_rec;

/* The head of one epoch parity's window; the records follow the table. */
typedef struct chk_pub {
    uint64_t nsync, ndata; /* the whole log: ordering records first, then data */
    uint64_t first, nrec;  /* the records in the window now: [first, first + nrec) */
    uint64_t tstart[];     /* npes + 1: data records of target t are
                            * [nsync + tstart[t], nsync + tstart[t + 1]) */
} chk_pub;

/* The entry point a data record came from (chk_rec.call), for reports. */
typedef enum chk_call {
    CALL_UNKNOWN,
    CALL_DEPOSIT,
    CALL_DEPOSIT_SECTION,
    CALL_DEPOSIT_INDEXED,
    CALL_DEPOSIT_GATHERED,
    CALL_DEPOSIT_ADP,
    CALL_FETCH,
    CALL_FETCH_SECTION,
    CALL_FETCH_INDEXED,
    CALL_COUNT
} chk_call;

static const char *const call_names[CALL_COUNT] = {
    [CALL_UNKNOWN] = "?",
    [CALL_DEPOSIT] = "dmsg_deposit",
    [CALL_DEPOSIT_SECTION] = "dmsg_deposit_section",
    [CALL_DEPOSIT_INDEXED] = "dmsg_deposit_indexed",
    [CALL_DEPOSIT_GATHERED] = "dmsg_deposit_gathered",
    [CALL_DEPOSIT_ADP] = "dmsg_deposit_adp",
    [CALL_FETCH] = "dmsg_fetch",
    [CALL_FETCH_SECTION] = "dmsg_fetch_section",
    [CALL_FETCH_INDEXED] = "dmsg_fetch_indexed",
};

static const char *call_name(uint32_t call)
{
    return call_names[call < CALL_COUNT ? call : CALL_UNKNOWN];
}

#define CHK_MAX_REPORTS 8 /* per epoch and PE; the rest are counted */
#define CHK_WIN_HEAD 64   /* the arrived word's cache line */

typedef struct vec {
    chk_rec *r;
    size_t n, cap;
} vec;

static struct {
    uint64_t win_off;   /* segment offset of every PE's window */
    uint64_t cap;       /* records per parity in a window */
    uint64_t pub_bytes; /* a parity's chk_pub with its table, rounded to 64 */
    uint64_t epoch;     /* barriers passed */
    uint64_t reports;   /* conflicts reported by this PE */
    uint32_t seq;       /* events of this PE in the epoch */
    vec data, sync;     /* this epoch's log */
    vec stream;         /* the published log: sync, then data by target */
    uint64_t lost;      /* records that found no memory this epoch */
    uint64_t *taken;    /* per slot: messages, bytes this PE awaited since the counter's creation */
    uint64_t *dep;      /* per slot: messages, bytes deposited to this PE in checked epochs */
    uintptr_t prog_lo, prog_hi, prog_base; /* the main program's mapping */
    char prog[64];      /* its name, for reports */
} chk;

static char *win(void)
{
    return dmsg_g.seg + chk.win_off;
}

static chk_pub *my_pub(int par)
{
    return (chk_pub *)(win() + CHK_WIN_HEAD + (uint64_t)par * chk.pub_bytes);
}

static uint64_t rec_at(int par)
{
    return CHK_WIN_HEAD + 2 * chk.pub_bytes + (uint64_t)par * chk.cap * sizeof(chk_rec);
}

/* Reads len bytes at offset off of PE pe's window: through the transport's
 * fetch (the checker's own reads are neither logged nor checked), or
 * directly from this PE's own. */
static dmsg_status win_read(int pe, uint64_t off, void *dst, size_t len)
{
    if (len == 0)
        return DMSG_OK;
    if (pe == dmsg_g.tp.rank) {
        memcpy(dst, win() + off, len);
        return DMSG_OK;
    }
    dmsg_op op = {.kind = DMSG_OP_CONTIG,
                  .dir = DMSG_DIR_GET,
                  .pe = pe,
                  .remote = win() + off,
                  .local = dst,
                  .elem = 1,
                  .n = len,
                  .roff = chk.win_off + off,
                  .payload = len};
    return dmsg_g.tp.ops->get(&dmsg_g.tp, &op);
}

uint64_t dmsg_chk_bytes(uint64_t seg_size, uint64_t want)
{
    uint64_t b = want;
    if (b == 0) {
        b = seg_size / 4;
        if (b > ((uint64_t)32 << 20))
            b = (uint64_t)32 << 20;
    }
    b = (b + 4095) & ~(uint64_t)4095;
    return b >= 4096 && b <= seg_size / 2 ? b : 0;
}

static int find_prog(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    /* The first object is the program itself. */
    chk.prog_base = (uintptr_t)info->dlpi_addr;
    chk.prog_lo = UINTPTR_MAX;
    chk.prog_hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t lo = chk.prog_base + ph->p_vaddr, hi = lo + ph->p_memsz;
        chk.prog_lo = lo < chk.prog_lo ? lo : chk.prog_lo;
        chk.prog_hi = hi > chk.prog_hi ? hi : chk.prog_hi;
    }
    return 1;
}

static void chk_free_all(void)
{
    free(chk.data.r);
    free(chk.sync.r);
    free(chk.stream.r);
    free(chk.taken);
    free(chk.dep);
    memset(&chk, 0, sizeof chk);
}

dmsg_status dmsg_chk_init(uint64_t off, uint64_t bytes)
{
    chk_free_all();
    chk.win_off = off;
    dl_iterate_phdr(find_prog, NULL);
    FILE *f = fopen("/proc/self/comm", "r");
    if (!f || !fgets(chk.prog, sizeof chk.prog, f))
        strcpy(chk.prog, "program");
    chk.prog[strcspn(chk.prog, "\n")] = '\0';
    if (f)
        fclose(f);
    uint64_t npes = (uint64_t)dmsg_g.tp.npes;
    chk.pub_bytes = (sizeof(chk_pub) + (npes + 1) * sizeof(uint64_t) + 63) & ~(uint64_t)63;
    uint64_t head = CHK_WIN_HEAD + 2 * chk.pub_bytes;
    chk.cap = bytes > head ? (bytes - head) / (2 * sizeof(chk_rec)) : 0;
    if (chk.cap < 16)
        return DMSG_FAIL(DMSG_ERR_NOMEM,
                         "DMSG_CHECK: %llu bytes leave no room for the check log of %llu PEs "
                         "(DMSG_CHECK_LOG)",
                         (unsigned long long)bytes, (unsigned long long)npes);
    memset(win(), 0, head);
    chk.taken = calloc(2 * (size_t)dmsg_g.tp.max_counters, sizeof *chk.taken);
    chk.dep = calloc(2 * (size_t)dmsg_g.tp.max_counters, sizeof *chk.dep);
    if (!chk.taken || !chk.dep) {
        chk_free_all();
        return DMSG_FAIL(DMSG_ERR_NOMEM, "DMSG_CHECK: counter tallies");
    }
    return DMSG_OK;
}

/* ----------------------------------------------------------------- logging */

static chk_rec *push(vec *v)
{
    if (v->n == v->cap) {
        size_t ncap = v->cap ? 2 * v->cap : 256;
        chk_rec *t = realloc(v->r, ncap * sizeof *t);
        if (!t) {
            chk.lost++;
            return NULL;
        }
        v->r = t;
        v->cap = ncap;
    }
    return &v->r[v->n++];
}

/* Turns the last record, a progression of two runs that no third run
 * continued, back into two single runs. Elements deposited in no order
 * (indexed and address-data transfers) pair up by chance with arbitrary
 * strides; kept, such pairs would span megabytes each, and the check's
 * sweep, which compares every record with those that start inside its
 * span, would take time quadratic in their number. */
static void split_pair(vec *v)
{
    if (v->n == 0 || v->r[v->n - 1].count != 2)
        return;
    chk_rec *r = push(v);
    if (!r)
        return; /* no memory: the pair stays, correct but slower to check */
    chk_rec *pair = &v->r[v->n - 2];
    *r = *pair;
    r->off = pair->off + pair->stride;
    r->count = 1;
    r->stride = r->len;
    pair->count = 1;
    pair->stride = pair->len;
}

/* Appends `count` runs of len bytes from off, stride apart, merged with the
 * previous record of the same call when it continues it (a run that
 * extends it, or one more step of its progression). */
static void add(const chk_rec *proto, uint64_t off, uint64_t len, uint64_t stride, uint64_t count)
{
    if (len == 0 || count == 0)
        return;
    if (count == 1)
        stride = len;
    vec *v = &chk.data;
    for (int tries = 0; v->n > 0 && tries < 2; tries++) {
        chk_rec *last = &v->r[v->n - 1];
        if (last->seq != proto->seq || last->target != proto->target ||
            last->kind != proto->kind || count != 1) {
            split_pair(v);
            break;
        }
        if (last->count == 1 && last->off + last->len == off) {
            last->len += len;
            last->stride = last->len;
            return;
        }
        if (last->len == len && last->count == 1 && off >= last->off + len) {
            last->stride = off - last->off;
            last->count = 2;
            return;
        }
        if (last->len == len && last->count > 1 && off == last->off + last->count * last->stride) {
            last->count++;
            return;
        }
        if (last->count != 2)
            break;
        split_pair(v); /* then try the run against the pair's second */
    }
    chk_rec *r = push(v);
    if (!r)
        return;
    *r = *proto;
    r->off = off;
    r->len = len;
    r->stride = stride;
    r->count = count;
}

/* A section layout based at segment offset off, as few records as its
 * shape allows: dimensions sorted by stride, contiguous ones folded into
 * runs, the next one (and any that continue it) into a progression, only
 * the rest enumerated. */
static void add_layout(const chk_rec *proto, uint64_t off, const dmsg_layout *lay, size_t elem)
{
    uint64_t cnt[DMSG_MAX_DIMS], str[DMSG_MAX_DIMS];
    int64_t base = (int64_t)off;
    int nd = 0;
    for (int d = 0; d < lay->ndims; d++) {
        if (lay->count[d] == 0)
            return;
        if (lay->count[d] == 1)
            continue;
        int64_t s = (int64_t)lay->stride[d];
        if (s < 0) { /* the same bytes, walked upwards */
            base += s * (int64_t)(lay->count[d] - 1);
            s = -s;
        }
        int k = nd++;
        while (k > 0 && str[k - 1] > (uint64_t)s) {
            str[k] = str[k - 1];
            cnt[k] = cnt[k - 1];
            k--;
        }
        str[k] = (uint64_t)s;
        cnt[k] = lay->count[d];
    }
    uint64_t run = elem;
    int d = 0;
    for (; d < nd && str[d] <= run; d++)
        run += str[d] * (cnt[d] - 1);
    uint64_t stride = run, n = 1;
    if (d < nd) {
        stride = str[d];
        n = cnt[d++];
        for (; d < nd && str[d] == stride * n; d++)
            n *= cnt[d];
    }
    uint64_t idx[DMSG_MAX_DIMS] = {0};
    for (;;) {
        int64_t at = base;
        for (int e = d; e < nd; e++)
            at += (int64_t)(idx[e] * str[e]);
        add(proto, (uint64_t)at, run, stride, n);
        int e = d;
        while (e < nd && ++idx[e] == cnt[e])
            idx[e++] = 0;
        if (e == nd)
            return;
    }
}

static void where_of(const void *ra, chk_rec *r)
{
    uintptr_t a = (uintptr_t)ra;
    int in_prog = a >= chk.prog_lo && a < chk.prog_hi;
    r->flags = in_prog ? CHK_F_PROG : 0;
    r->where = in_prog ? a - chk.prog_base : a;
}

static void place(char *buf, size_t len, const chk_rec *r, int pe)
{
    if (r->flags & CHK_F_PROG)
        snprintf(buf, len, "called from %s+0x%llx", chk.prog, (unsigned long long)r->where);
    else
        snprintf(buf, len, "called from %#llx in PE %d", (unsigned long long)r->where, pe);
}

/* Reports the records of this call [first, data.n) that leave the allocated
 * blocks (freed ones included: under the checker dmsg_alloc does not reuse
 * freed memory while there is fresh, so a stale pointer lands in a hole). */
static void check_blocks(size_t first, const dmsg_op *op)
{
    for (size_t i = first; i < chk.data.n; i++) {
        const chk_rec *r = &chk.data.r[i];
        uint64_t hi = r->off + (r->count - 1) * r->stride + r->len;
        if (r->target != (uint16_t)op->pe || dmsg_heap_is_used(&dmsg_g.heap, r->off, hi - r->off))
            continue;
        char at[160];
        place(at, sizeof at, r, dmsg_g.tp.rank);
        fprintf(stderr,
                "dmsg check: epoch %llu: PE %d %s PE %d's bytes at segment offset %#llx..%#llx "
                "with %s (%s), but they are not in an allocated block (freed by dmsg_free, "
                "or never allocated)\n",
                (unsigned long long)chk.epoch, dmsg_g.tp.rank,
                op->dir == DMSG_DIR_GET ? "fetches" : "deposits into", op->pe,
                (unsigned long long)r->off, (unsigned long long)hi, call_name(r->call), at);
        chk.reports++;
        return;
    }
}

/* Each kind's remote footprint: the bytes at the target it writes or
 * reads, as runs (add), from its segment offset off. */
static void foot_contig(const chk_rec *c, const dmsg_op *op, uint64_t off)
{
    add(c, off, op->n, 0, 1);
}

static void foot_section(const chk_rec *c, const dmsg_op *op, uint64_t off)
{
    add_layout(c, off, op->rl, op->elem);
}

static void foot_remote_indexed(const chk_rec *c, const dmsg_op *op, uint64_t off)
{
    for (size_t i = 0; i < op->n; i++)
        add(c, off + op->idx[i] * op->elem, op->elem, 0, 1);
}

static void foot_local_indexed(const chk_rec *c, const dmsg_op *op, uint64_t off)
{
    add(c, off, op->n * op->elem, 0, 1);
}

static void foot_periodic(const chk_rec *c, const dmsg_op *op, uint64_t off)
{
    if (op->per->stream == DMSG_PER_DST_STREAM) {
        add(c, off, op->payload, 0, 1);
        return;
    }
    for (size_t k = 0; k < op->per->nruns; k++) {
        const dmsg_prun *r = &op->per->run[k];
        int64_t s = (int64_t)op->per->dstride, o = (int64_t)off + r->doff;
        if (s < 0) { /* the same bytes, walked upwards */
            o += s * (int64_t)(r->reps - 1);
            s = -s;
        }
        add(c, (uint64_t)o, r->bytes, (uint64_t)s, r->reps);
    }
}

static void foot_adp(const chk_rec *c, const dmsg_op *op, uint64_t off)
{
    size_t rs = dmsg_adp_record_size(op->elem);
    for (size_t i = 0; i < op->n; i++) {
        uint64_t o;
        memcpy(&o, (const char *)op->local + i * rs, sizeof o);
        add(c, off + o, op->elem, 0, 1);
    }
}

/* The checker's row of each transfer kind (DMSG_OP_KIND_LIST): the entry
 * points that make it, for reports, and its footprint. */
typedef struct chk_kind {
    chk_call put_call, get_call;
    void (*footprint)(const chk_rec *c, const dmsg_op *op, uint64_t off);
} chk_kind;

/* Each kind's entry points: deposit, fetch (a kind without a fetch keeps
 * its deposit's name, as before the table). */
#define CALLS_CONTIG CALL_DEPOSIT, CALL_FETCH
#define CALLS_SECTION CALL_DEPOSIT_SECTION, CALL_FETCH_SECTION
#define CALLS_REMOTE_INDEXED CALL_DEPOSIT_INDEXED, CALL_FETCH_INDEXED
#define CALLS_LOCAL_INDEXED CALL_DEPOSIT_GATHERED, CALL_DEPOSIT_GATHERED
#define CALLS_ADP CALL_DEPOSIT_ADP, CALL_DEPOSIT_ADP
#define CALLS_PERIODIC CALL_DEPOSIT_SECTION, CALL_DEPOSIT_SECTION /* the plan's section deposits, folded */

static const chk_kind chk_kinds[] = {
#define CHK_ROW_(K, k) [DMSG_OP_##K] = {CALLS_##K, foot_##k},
    DMSG_OP_KIND_LIST(CHK_ROW_)
#undef CHK_ROW_
};
DMSG_OP_TABLE_CHECK(chk_kinds);

void dmsg_chk_op(const dmsg_op *op, uint32_t slot, int nb, const void *ra)
{
    if (!dmsg_g.check)
        return;
    int me = dmsg_g.tp.rank, get = op->dir == DMSG_DIR_GET;
    chk_rec c = {.seq = chk.seq++, .call = get ? chk_kinds[op->kind].get_call : chk_kinds[op->kind].put_call, .target = (uint16_t)op->pe};
    where_of(ra, &c);
    if (nb)
        c.flags |= CHK_F_NB;
    if (!get && slot != UINT32_MAX) {
        chk_rec *s = push(&chk.sync);
        if (s) {
            *s = c;
            s->kind = CHK_CDEP;
            s->call = slot;
            s->len = op->payload;
        }
    }
    c.kind = get ? CHK_FETCH : CHK_DEPOSIT;
    size_t first = chk.data.n;
    chk_kinds[op->kind].footprint(&c, op, op->roff);
    check_blocks(first, op);
    /* The local side of a contiguous transfer, when it is this PE's own
     * symmetric memory: a read (deposit source) or a write (fetch target)
     * that other PEs' deposits and fetches can race with. */
    size_t loff;
    if (op->kind == DMSG_OP_CONTIG && dmsg_addr_is_symmetric(op->local, op->n) &&
        dmsg_sym_range(op->local, op->n, &loff) == DMSG_OK) {
        c.target = (uint16_t)me;
        c.kind = get ? CHK_LOCAL_WRITE : CHK_LOCAL_READ;
        add(&c, loff, op->n, 0, 1);
    }
}

void dmsg_chk_quiet(void)
{
    if (!dmsg_g.check)
        return;
    chk_rec *s = push(&chk.sync);
    if (s)
        *s = (chk_rec){.kind = CHK_QUIET, .seq = chk.seq++, .target = (uint16_t)dmsg_g.tp.rank};
}

void dmsg_chk_ctr_reset(uint32_t slot)
{
    if (!dmsg_g.check)
        return;
    memset(&chk.taken[2 * (size_t)slot], 0, 2 * sizeof *chk.taken);
    memset(&chk.dep[2 * (size_t)slot], 0, 2 * sizeof *chk.dep);
}

/* ------------------------------------------------------------- publishing */

/* Builds the stream (ordering records, then data records by target) and
 * the counts of the table into pub. */
static dmsg_status build_stream(chk_pub *pub)
{
    int npes = dmsg_g.tp.npes;
    size_t total = chk.sync.n + chk.data.n;
    if (chk.stream.cap < total) {
        chk_rec *t = realloc(chk.stream.r, total * sizeof *t);
        if (!t)
            return DMSG_FAIL(DMSG_ERR_NOMEM, "DMSG_CHECK: %zu records", total);
        chk.stream.r = t;
        chk.stream.cap = total;
    }
    chk.stream.n = total;
    memset(pub->tstart, 0, ((size_t)npes + 1) * sizeof pub->tstart[0]);
    for (size_t i = 0; i < chk.data.n; i++)
        pub->tstart[chk.data.r[i].target + 1]++;
    for (int t = 0; t < npes; t++)
        pub->tstart[t + 1] += pub->tstart[t];
    if (chk.sync.n)
        memcpy(chk.stream.r, chk.sync.r, chk.sync.n * sizeof(chk_rec));
    uint64_t fill[npes]; /* next free place per target */
    memcpy(fill, pub->tstart, (size_t)npes * sizeof fill[0]);
    for (size_t i = 0; i < chk.data.n; i++)
        chk.stream.r[chk.sync.n + fill[chk.data.r[i].target]++] = chk.data.r[i];
    pub->nsync = chk.sync.n;
    pub->ndata = chk.data.n;
    return DMSG_OK;
}

/* Puts chunk r of the stream into the window of parity par. */
static void publish_chunk(int par, uint64_t r)
{
    chk_pub *pub = my_pub(par);
    uint64_t first = r * chk.cap, n = 0;
    if (first < chk.stream.n)
        n = chk.stream.n - first < chk.cap ? chk.stream.n - first : chk.cap;
    if (n)
        memcpy(win() + rec_at(par), chk.stream.r + first, n * sizeof(chk_rec));
    pub->first = first;
    pub->nrec = n;
}

void dmsg_chk_arrive(void)
{
    if (!dmsg_g.check)
        return;
    int par = (int)(chk.epoch & 1);
    chk_pub *pub = my_pub(par);
    if (build_stream(pub) != DMSG_OK) {
        /* Out of memory: publish nothing, and say what was not checked. */
        chk.lost += chk.sync.n + chk.data.n;
        pub->nsync = pub->ndata = 0;
        memset(pub->tstart, 0, ((size_t)dmsg_g.tp.npes + 1) * sizeof pub->tstart[0]);
        chk.stream.n = 0;
    }
    publish_chunk(par, 0);
    atomic_store_explicit((_Atomic uint64_t *)win(), chk.epoch + 1, memory_order_release);
}

/* --------------------------------------------------------------- gathering */

typedef struct chk_item {
    chk_rec r;
    int pe; /* issuer */
} chk_item;

typedef struct gathered {
    chk_item *it;  /* data records of this PE's memory */
    size_t n, cap;
    chk_rec **sync; /* per PE: its ordering records, in program order */
    size_t *nsync;
} gathered;

static dmsg_status grow_items(gathered *g, size_t more)
{
    if (g->n + more <= g->cap)
        return DMSG_OK;
    size_t ncap = g->cap ? g->cap : 256;
    while (ncap < g->n + more)
        ncap *= 2;
    chk_item *t = realloc(g->it, ncap * sizeof *t);
    if (!t)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "DMSG_CHECK: %zu records", ncap);
    g->it = t;
    g->cap = ncap;
    return DMSG_OK;
}

/* Reads, from PE p's window holding [h->first, h->first + h->nrec) of its
 * stream, the part of [lo, hi) that is there, to dst[.. - lo]. */
static dmsg_status read_part(int p, int par, const chk_pub *h, uint64_t lo, uint64_t hi,
                             chk_rec *dst)
{
    uint64_t a = lo > h->first ? lo : h->first, e = h->first + h->nrec;
    uint64_t b = hi < e ? hi : e;
    if (a >= b)
        return DMSG_OK;
    return win_read(p, rec_at(par) + (a - h->first) * sizeof(chk_rec), dst + (a - lo),
                    (size_t)(b - a) * sizeof(chk_rec));
}

/* Round r of every PE's window: its ordering records and the data records
 * of this PE's memory that are in the window now. */
static dmsg_status gather_round(int par, chk_pub **hdr, chk_rec **mine, gathered *g)
{
    int me = dmsg_g.tp.rank, npes = dmsg_g.tp.npes;
    dmsg_status st = DMSG_OK;
    for (int p = 0; !st && p < npes; p++) {
        chk_pub *h = hdr[p];
        st = win_read(p, CHK_WIN_HEAD + (uint64_t)par * chk.pub_bytes, h, sizeof *h);
        if (!st)
            st = read_part(p, par, h, 0, h->nsync, g->sync[p]);
        if (!st)
            st = read_part(p, par, h, h->nsync + h->tstart[me], h->nsync + h->tstart[me + 1],
                           mine[p]);
    }
    return st;
}

/* Every PE's ordering records and the data records of this PE's memory,
 * over as many rounds as the largest log needs. */
static dmsg_status gather_all(int par, gathered *g)
{
    int me = dmsg_g.tp.rank, npes = dmsg_g.tp.npes;
    dmsg_status st = DMSG_OK;
    size_t hb = chk.pub_bytes;
    char *hbuf = calloc((size_t)npes, hb);
    chk_pub **hdr = calloc((size_t)npes, sizeof *hdr);
    chk_rec **mine = calloc((size_t)npes, sizeof *mine);
    g->sync = calloc((size_t)npes, sizeof *g->sync);
    g->nsync = calloc((size_t)npes, sizeof *g->nsync);
    if (!hbuf || !hdr || !mine || !g->sync || !g->nsync) {
        st = DMSG_FAIL(DMSG_ERR_NOMEM, "DMSG_CHECK: tables");
        goto out;
    }
    uint64_t rounds = 1, all = 0;
    for (int p = 0; !st && p < npes; p++) {
        hdr[p] = (chk_pub *)(hbuf + (size_t)p * hb);
        st = win_read(p, CHK_WIN_HEAD + (uint64_t)par * hb, hdr[p], hb);
        if (st)
            break;
        uint64_t total = hdr[p]->nsync + hdr[p]->ndata;
        uint64_t r = (total + chk.cap - 1) / chk.cap;
        rounds = r > rounds ? r : rounds;
        uint64_t nm = hdr[p]->tstart[me + 1] - hdr[p]->tstart[me];
        g->nsync[p] = hdr[p]->nsync;
        g->sync[p] = malloc((hdr[p]->nsync ? hdr[p]->nsync : 1) * sizeof(chk_rec));
        all += nm;
        if (!g->sync[p] || (st = grow_items(g, all)))
            st = st ? st : DMSG_FAIL(DMSG_ERR_NOMEM, "DMSG_CHECK: records");
        mine[p] = malloc((nm ? nm : 1) * sizeof(chk_rec));
        if (!st && !mine[p])
            st = DMSG_FAIL(DMSG_ERR_NOMEM, "DMSG_CHECK: records");
    }
    /* Every PE computes the same number of rounds from the same headers,
     * so the extra barriers match. An error here stops this PE's check,
     * but it still takes part in them. */
    for (uint64_t r = 0; r < rounds; r++) {
        if (r > 0) {
            dmsg_status bst = dmsg_g.tp.ops->barrier(&dmsg_g.tp);
            publish_chunk(par, r);
            if (!bst)
                bst = dmsg_g.tp.ops->barrier(&dmsg_g.tp);
            if (bst) {
                st = st ? st : bst;
                break;
            }
        }
        if (!st)
            st = gather_round(par, hdr, mine, g);
    }
    for (int p = 0; !st && p < npes; p++) {
        uint64_t nm = hdr[p]->tstart[me + 1] - hdr[p]->tstart[me];
        for (uint64_t i = 0; i < nm; i++)
            g->it[g->n++] = (chk_item){mine[p][i], p};
    }
out:
    if (mine)
        for (int p = 0; p < npes; p++)
            free(mine[p]);
    free(mine);
    free(hdr);
    free(hbuf);
    return st;
}

/* --------------------------------------------------------------- ordering */

/* Replays the epoch's ordering records of every PE to find which awaits
 * certainly consumed which counted deposits, and with them the vector
 * clocks: clock[j] = s says that PE j's events before s were issued before.
 * An await of PE k on a counter certainly consumed the epoch's deposits to
 * it when all the deposits that could have arrived before it (those not
 * issued after it) are no more than it asked for; otherwise which ones it
 * consumed depends on timing, and it orders nothing. */
#define NONE UINT32_MAX

typedef struct cdep {
    int pe;
    uint32_t seq, slot, consumed; /* consumed: seq of the target's await that certainly did */
    uint16_t target;
    int done;     /* the replay has passed it */
    uint64_t bytes;
    uint32_t *vc; /* the issuer's clock at it */
} cdep;

typedef struct order {
    int npes;
    const gathered *g;
    cdep *d;
    size_t nd;
    size_t *dstart;    /* PE p's deposits: d[dstart[p] .. dstart[p + 1]) */
    size_t *by_ts;     /* d's indices by (target, slot) */
    uint32_t *clocks;  /* the deposits' and awaits' clocks */
    uint32_t **aw_seq; /* per PE: its resolved awaits' seqs, */
    uint32_t **aw_vc;  /* and clocks after them */
    size_t *naw, *pos, *cd;
    uint32_t *cur;     /* npes x npes: each PE's clock in the replay */
} order;

static const order *sort_ctx;

static int by_ts(const void *a, const void *b)
{
    const cdep *x = &sort_ctx->d[*(const size_t *)a], *y = &sort_ctx->d[*(const size_t *)b];
    if (x->target != y->target)
        return x->target < y->target ? -1 : 1;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    return (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

static void order_free(order *o)
{
    if (o->aw_seq)
        free(o->aw_seq[0]);
    free(o->d);
    free(o->dstart);
    free(o->by_ts);
    free(o->clocks);
    free(o->aw_seq);
    free(o->naw);
    free(o->pos);
    free(o->cd);
    free(o->cur);
}

static dmsg_status order_build(order *o, const gathered *g)
{
    int n = dmsg_g.tp.npes;
    memset(o, 0, sizeof *o);
    o->npes = n;
    o->g = g;
    size_t naw = 0;
    for (int p = 0; p < n; p++)
        for (size_t i = 0; i < g->nsync[p]; i++) {
            o->nd += g->sync[p][i].kind == CHK_CDEP;
            naw += g->sync[p][i].kind == CHK_AWAIT;
        }
    size_t un = (size_t)n;
    o->d = calloc(o->nd + 1, sizeof *o->d);
    o->dstart = calloc(un + 1, sizeof *o->dstart);
    o->by_ts = calloc(o->nd + 1, sizeof *o->by_ts);
    o->clocks = calloc((o->nd + naw + 1) * un, sizeof *o->clocks);
    o->aw_seq = calloc(2 * un, sizeof *o->aw_seq);
    o->naw = calloc(un, sizeof *o->naw);
    o->pos = calloc(un, sizeof *o->pos);
    o->cd = calloc(un, sizeof *o->cd);
    o->cur = calloc(un * un, sizeof *o->cur);
    uint32_t *awseq = calloc(naw + 1, sizeof *awseq);
    if (!o->d || !o->dstart || !o->by_ts || !o->clocks || !o->aw_seq || !o->naw || !o->pos ||
        !o->cd || !o->cur || !awseq) {
        free(awseq);
        order_free(o);
        return DMSG_FAIL(DMSG_ERR_NOMEM, "DMSG_CHECK: ordering tables");
    }
    o->aw_vc = o->aw_seq + un;
    size_t k = 0, a = 0;
    uint32_t *vc = o->clocks;
    for (int p = 0; p < n; p++) {
        o->dstart[p] = k;
        o->aw_seq[p] = awseq + a;
        for (size_t i = 0; i < g->nsync[p]; i++) {
            const chk_rec *r = &g->sync[p][i];
            if (r->kind == CHK_CDEP) {
                o->d[k] = (cdep){.pe = p, .seq = r->seq, .slot = r->call, .consumed = NONE,
                                 .target = r->target, .bytes = r->len, .vc = vc};
                vc += un;
                o->by_ts[k] = k;
                k++;
            } else if (r->kind == CHK_AWAIT)
                a++;
        }
    }
    o->dstart[n] = k;
    a = 0;
    for (int p = 0; p < n; p++) {
        o->aw_vc[p] = vc;
        for (size_t i = 0; i < g->nsync[p]; i++)
            if (g->sync[p][i].kind == CHK_AWAIT)
                vc += un;
    }
    sort_ctx = o;
    qsort(o->by_ts, o->nd, sizeof *o->by_ts, by_ts);
    return DMSG_OK;
}

/* The deposits to (target, slot): by_ts[*lo .. *hi). */
static void ts_range(const order *o, int target, uint32_t slot, size_t *lo, size_t *hi)
{
    size_t l = 0, h = o->nd;
    while (l < h) {
        size_t m = (l + h) / 2;
        const cdep *c = &o->d[o->by_ts[m]];
        if (c->target < target || (c->target == target && c->slot < slot))
            l = m + 1;
        else
            h = m;
    }
    *lo = l;
    while (l < o->nd && o->d[o->by_ts[l]].target == target && o->d[o->by_ts[l]].slot == slot)
        l++;
    *hi = l;
}

/* Resolves PE k's await w in the replay when it can be: 0 while it must
 * wait for other PEs' deposits (unless stuck: every PE is at an await). */
static int try_resolve(order *o, int k, const chk_rec *w, int stuck, int force)
{
    int n = o->npes, bytes = (w->flags & CHK_F_BYTES) != 0;
    int64_t need = (int64_t)w->off;
    uint64_t avail = 0, pend = 0;
    size_t lo, hi;
    ts_range(o, k, w->call, &lo, &hi);
    for (size_t i = lo; i < hi; i++) {
        const cdep *c = &o->d[o->by_ts[i]];
        uint64_t amt = bytes ? c->bytes : 1;
        if (c->done)
            avail += amt;
        else if (!(c->pe == k && c->seq > w->seq))
            pend += amt;
    }
    if (!force && ((pend && !stuck) || (int64_t)avail < need))
        return 0;
    uint32_t *vc = &o->cur[(size_t)k * (size_t)n];
    if (!force && need > 0 && (int64_t)(avail + pend) <= need)
        for (size_t i = lo; i < hi; i++) {
            cdep *c = &o->d[o->by_ts[i]];
            if (!c->done)
                continue;
            for (int j = 0; j < n; j++)
                vc[j] = c->vc[j] > vc[j] ? c->vc[j] : vc[j];
            if (c->consumed == NONE)
                c->consumed = w->seq;
        }
    size_t a = o->naw[k]++;
    o->aw_seq[k][a] = w->seq;
    memcpy(o->aw_vc[k] + a * (size_t)n, vc, (size_t)n * sizeof *vc);
    return 1;
}

static void replay(order *o)
{
    int n = o->npes;
    const gathered *g = o->g;
    for (;;) {
        int progress = 0, left = 0;
        for (int p = 0; p < n; p++) {
            while (o->pos[p] < g->nsync[p]) {
                const chk_rec *e = &g->sync[p][o->pos[p]];
                if (e->kind == CHK_AWAIT && !try_resolve(o, p, e, 0, 0))
                    break;
                if (e->kind == CHK_CDEP) {
                    cdep *c = &o->d[o->dstart[p] + o->cd[p]++];
                    memcpy(c->vc, &o->cur[(size_t)p * (size_t)n], (size_t)n * sizeof *c->vc);
                    c->vc[p] = e->seq;
                    c->done = 1;
                }
                o->pos[p]++;
                progress = 1;
            }
            left |= o->pos[p] < g->nsync[p];
        }
        if (!left)
            return;
        if (progress)
            continue;
        /* Every PE left waits in an await: resolve one that can complete,
         * counting the deposits that the others have yet to issue as ones
         * that may arrive before it; if none can, order nothing by them. */
        int any = 0;
        for (int p = 0; !any && p < n; p++)
            if (o->pos[p] < g->nsync[p] && try_resolve(o, p, &g->sync[p][o->pos[p]], 1, 0)) {
                o->pos[p]++;
                any = 1;
            }
        for (int p = 0; !any && p < n; p++)
            if (o->pos[p] < g->nsync[p]) {
                try_resolve(o, p, &g->sync[p][o->pos[p]], 1, 1);
                o->pos[p]++;
            }
    }
}

/* What PE i knew at its event s of PE j's events: they are before it when
 * their seq is below the result. */
static uint32_t clock_at(const order *o, int i, uint32_t s, int j)
{
    if (i == j)
        return s;
    size_t l = 0, h = o->naw[i];
    while (l < h) { /* the awaits before s */
        size_t m = (l + h) / 2;
        if (o->aw_seq[i][m] < s)
            l = m + 1;
        else
            h = m;
    }
    return l ? o->aw_vc[i][(l - 1) * (size_t)o->npes + (size_t)j] : 0;
}

/* Is a (PE j's) complete at b (PE i's)? */
static int before(const order *o, const chk_item *a, const chk_item *b)
{
    int j = a->pe, i = b->pe;
    uint32_t know = clock_at(o, i, b->r.seq, j);
    int at_return = a->r.kind != CHK_DEPOSIT && !(a->r.flags & CHK_F_NB);
    if (at_return && know > a->r.seq)
        return 1;
    if (!at_return) { /* complete at j's next quiet */
        const chk_rec *s = o->g->sync[j];
        for (size_t x = 0; x < o->g->nsync[j]; x++)
            if (s[x].kind == CHK_QUIET && s[x].seq > a->r.seq) {
                if (know > s[x].seq)
                    return 1;
                break;
            }
    }
    if (a->r.kind != CHK_DEPOSIT)
        return 0;
    size_t l = o->dstart[j], h = o->dstart[j + 1];
    while (l < h) {
        size_t m = (l + h) / 2;
        if (o->d[m].seq < a->r.seq)
            l = m + 1;
        else
            h = m;
    }
    if (l == o->dstart[j + 1] || o->d[l].seq != a->r.seq || o->d[l].consumed == NONE)
        return 0;
    /* Its own arrival was awaited by its target, which i knows of. */
    return clock_at(o, i, b->r.seq, o->d[l].target) > o->d[l].consumed;
}

/* --------------------------------------------------------------- checking */

static uint64_t rec_end(const chk_rec *r)
{
    return r->off + (r->count - 1) * r->stride + r->len;
}

static int by_off(const void *a, const void *b)
{
    const chk_item *x = a, *y = b;
    return x->r.off < y->r.off ? -1 : x->r.off > y->r.off;
}

static int writes(const chk_item *i)
{
    return i->r.kind == CHK_DEPOSIT || i->r.kind == CHK_LOCAL_WRITE;
}

/* floor(a / b), b > 0 */
static int64_t fdiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* The first bytes [*lo, *hi) that both records touch; 0 if none. */
static int overlap(const chk_rec *a, const chk_rec *b, uint64_t *lo, uint64_t *hi)
{
    if (a->count > b->count) {
        const chk_rec *t = a;
        a = b;
        b = t;
    }
    int64_t ao = (int64_t)a->off, al = (int64_t)a->len, as = (int64_t)a->stride;
    int64_t bo = (int64_t)b->off, bl = (int64_t)b->len, bs = (int64_t)b->stride;
    int64_t ia = -1, jb = -1;
    if (a->count > 1 && as == bs) {
        /* Runs i and j = i + k meet when -bl < (bo - ao) + k s < al. */
        int64_t dl = bo - ao, kl = fdiv(-bl - dl, as) + 1, kh = fdiv(al - dl - 1, as);
        int64_t kmin = -((int64_t)a->count - 1), kmax = (int64_t)b->count - 1;
        kl = kl > kmin ? kl : kmin;
        kh = kh < kmax ? kh : kmax;
        if (kl <= kh) {
            ia = kl < 0 ? -kl : 0;
            jb = ia + kl;
        }
    } else
        for (int64_t i = 0; i < (int64_t)a->count && ia < 0; i++) {
            int64_t x = ao + i * as;
            /* runs j of b with bo + j bs < x + al and bo + j bs + bl > x */
            int64_t jl = fdiv(x - bl - bo, bs) + 1, jh = fdiv(x + al - bo - 1, bs);
            jl = jl > 0 ? jl : 0;
            jh = jh < (int64_t)b->count - 1 ? jh : (int64_t)b->count - 1;
            if (jl <= jh) {
                ia = i;
                jb = jl;
            }
        }
    if (ia < 0)
        return 0;
    int64_t x = ao + ia * as, y = bo + jb * bs;
    *lo = (uint64_t)(x > y ? x : y);
    *hi = (uint64_t)(x + al < y + bl ? x + al : y + bl);
    return 1;
}

static void describe(char *buf, size_t len, const chk_item *i)
{
    static const char *const what[] = {"?", "deposits into", "fetches", "reads (deposit source)",
                                       "writes (fetch target)"};
    char at[160];
    place(at, sizeof at, &i->r, i->pe);
    snprintf(buf, len, "PE %d %s them with %s (%s)", i->pe, what[i->r.kind <= 4 ? i->r.kind : 0],
             call_name(i->r.call), at);
}

static void report(const chk_item *a, const chk_item *b, uint64_t lo, uint64_t hi, uint64_t epoch)
{
    int me = dmsg_g.tp.rank;
    char da[256], db[256];
    describe(da, sizeof da, a);
    describe(db, sizeof db, b);
    const char *kind = writes(a) && writes(b) ? "two deposits write the same bytes"
                                              : "a fetch or read of bytes that another PE deposits";
    fprintf(stderr,
            "dmsg check: epoch %llu: %s: PE %d's bytes at segment offset %#llx..%#llx (%llu "
            "bytes, address %p on PE %d): %s; %s; no barrier orders them, nor an await that "
            "certainly counted the deposit\n",
            (unsigned long long)epoch, kind, me, (unsigned long long)lo,
            (unsigned long long)hi, (unsigned long long)(hi - lo),
            (void *)(dmsg_g.seg + lo), me, da, db);
}

static void check_epoch(uint64_t epoch)
{
    int me = dmsg_g.tp.rank, npes = dmsg_g.tp.npes, par = (int)(epoch & 1);
    gathered g = {0};
    order o;
    int have_order = 0;
    if (gather_all(par, &g) != DMSG_OK || order_build(&o, &g) != DMSG_OK) {
        fprintf(stderr,
                "dmsg check: epoch %llu: PE %d could not read or order the check logs: this "
                "epoch is not checked\n",
                (unsigned long long)epoch, me);
        goto out;
    }
    have_order = 1;
    replay(&o);
    if (g.n > 1)
        qsort(g.it, g.n, sizeof *g.it, by_off);
    uint64_t found = 0;
    for (size_t i = 0; i < g.n; i++) {
        uint64_t end = rec_end(&g.it[i].r), lo, hi;
        for (size_t j = i + 1; j < g.n && g.it[j].r.off < end; j++) {
            const chk_item *x = &g.it[i], *y = &g.it[j];
            if (y->pe == x->pe || (!writes(x) && !writes(y)) || !overlap(&x->r, &y->r, &lo, &hi))
                continue;
            if (before(&o, x, y) || before(&o, y, x))
                continue;
            if (found++ < CHK_MAX_REPORTS)
                report(x, y, lo, hi, epoch);
        }
    }
    if (found > CHK_MAX_REPORTS)
        fprintf(stderr, "dmsg check: epoch %llu: PE %d: %llu more conflicts not shown\n",
                (unsigned long long)epoch, me, (unsigned long long)(found - CHK_MAX_REPORTS));
    chk.reports += found;
out:
    /* The counts of this epoch's deposits to this PE, for the next
     * epochs' awaits (a counter keeps what was not awaited). */
    for (int p = 0; g.sync && p < npes; p++)
        for (size_t i = 0; g.sync[p] && i < g.nsync[p]; i++) {
            const chk_rec *r = &g.sync[p][i];
            if (r->kind == CHK_CDEP && r->target == me && r->call < dmsg_g.tp.max_counters) {
                chk.dep[2 * (size_t)r->call]++;
                chk.dep[2 * (size_t)r->call + 1] += r->len;
            }
        }
    if (chk.lost) {
        fprintf(stderr,
                "dmsg check: epoch %llu: PE %d: %llu records of its calls found no memory and "
                "were not checked\n",
                (unsigned long long)epoch, me, (unsigned long long)chk.lost);
        chk.reports++;
    }
    if (have_order)
        order_free(&o);
    for (int p = 0; g.sync && p < npes; p++)
        free(g.sync[p]);
    free(g.sync);
    free(g.nsync);
    free(g.it);
}

void dmsg_chk_epoch_end(void)
{
    if (!dmsg_g.check)
        return;
    check_epoch(chk.epoch);
    chk.epoch++;
    chk.data.n = chk.sync.n = 0;
    chk.seq = 0;
    chk.lost = 0;
}

/* 1 when every other PE has reached the barrier that ends this epoch. */
static int others_arrived(void)
{
    for (int p = 0; p < dmsg_g.tp.npes; p++) {
        uint64_t arrived = 0;
        if (p != dmsg_g.tp.rank &&
            (win_read(p, 0, &arrived, sizeof arrived) != DMSG_OK || arrived != chk.epoch + 1))
            return 0;
    }
    return 1;
}

static void log_await(uint32_t slot, int bytes_mode, uint64_t n, const void *ra)
{
    uint64_t *t = &chk.taken[2 * (size_t)slot + (bytes_mode ? 1 : 0)];
    *t += n;
    chk_rec *s = push(&chk.sync);
    if (!s)
        return;
    *s = (chk_rec){.kind = CHK_AWAIT, .seq = chk.seq++, .call = slot,
                   .target = (uint16_t)dmsg_g.tp.rank};
    where_of(ra, s);
    if (bytes_mode)
        s->flags |= CHK_F_BYTES;
    /* What this epoch's deposits must supply: the total awaited since the
     * counter's creation less what earlier epochs deposited. */
    s->off = *t - chk.dep[2 * (size_t)slot + (bytes_mode ? 1 : 0)];
}

dmsg_status dmsg_chk_await(uint32_t slot, int bytes_mode, uint64_t n, const void *ra)
{
    dmsg_tp *tp = &dmsg_g.tp;
    dmsg_waiter w;
    dmsg_waiter_start(&w, &tp->wait);
    /* A look reads the others' windows, which is communication: under the
     * simulator's scheduler the counter reads between looks hand the run
     * token on only after more than 2 npes + 8 fruitless reads with no
     * communication between (sim.c, sim_ctr_read), so the looks must lie
     * further apart than that, or a PE that awaits a deposit the next PE to
     * run would make never lets it run (4 PEs: 16 reads, looked at every
     * 16th). */
    unsigned look = 2u * (unsigned)tp->npes + 16u;
    for (unsigned spins = 0;; spins++) {
        uint64_t m, b;
        tp->ops->ctr_read(tp, slot, &m, &b);
        if ((bytes_mode ? b : m) >= n)
            break;
        /* Reading the others' windows costs a transfer each: look only
         * now and then, and give the core away between looks, since the
         * PE that must deposit may be waiting for it. */
        if (spins % look == look - 1 && others_arrived()) {
            /* Deposits are complete when their issuer reaches a barrier. */
            tp->ops->ctr_read(tp, slot, &m, &b);
            if ((bytes_mode ? b : m) >= n)
                break;
            uintptr_t a = (uintptr_t)ra;
            int in_prog = a >= chk.prog_lo && a < chk.prog_hi;
            fprintf(stderr,
                    "dmsg check: epoch %llu: PE %d awaits %llu %s on counter %u (called from "
                    "%s+0x%llx) but only %llu were deposited before every other PE reached the "
                    "next barrier: the await can never complete\n",
                    (unsigned long long)chk.epoch, tp->rank, (unsigned long long)n,
                    bytes_mode ? "bytes" : "messages", slot + 1, in_prog ? chk.prog : "",
                    (unsigned long long)(in_prog ? a - chk.prog_base : a),
                    (unsigned long long)(bytes_mode ? b : m));
            chk.reports++;
            return DMSG_FAIL(DMSG_ERR_STATE, "await can never complete (DMSG_CHECK)");
        }
        if (spins < 64)
            sched_yield();
        else {
            long us = spins < 256 ? 20 : 200;
            struct timespec ts = {0, us * 1000};
            nanosleep(&ts, NULL);
        }
        /* the policy's deadline (DMSG_TIMEOUT) and the launcher's abort
         * flag end this wait as any other */
        dmsg_wait_act act = dmsg_waiter_step(&w);
        if (act == DMSG_WAIT_TIMEOUT || act == DMSG_WAIT_ABORTED)
            return dmsg_waiter_fail(&w, act, "a counter (DMSG_CHECK's await)");
    }
    dmsg_status st = tp->ops->ctr_wait(tp, slot, bytes_mode, n);
    if (!st)
        log_await(slot, bytes_mode, n, ra);
    return st;
}

void dmsg_chk_finalize(void)
{
    if (dmsg_g.check && chk.reports)
        fprintf(stderr, "dmsg check: PE %d: %llu reports in %llu epochs\n", dmsg_g.tp.rank,
                (unsigned long long)chk.reports, (unsigned long long)chk.epoch);
    chk_free_all();
}
