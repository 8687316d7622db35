/* The checker for well-synchronized programs (checker.h, docs/model.md). */
#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "dmsg/core/checker.h"
#include "dmsg/core/state.h"

/* What a record says the issuing PE did to the target PE's bytes. */
enum { CHK_DEPOSIT = 1, CHK_FETCH, CHK_LOCAL_READ, CHK_LOCAL_WRITE };

typedef struct chk_rec {
    uint64_t off, len; /* bytes [off, off+len) of the target's segment */
    uint64_t where;    /* the call's return address: an offset in the program when
                        * in_prog, else the issuer's raw address */
    uint16_t target;   /* the PE whose memory it is */
    uint8_t kind;
    uint8_t in_prog;
    uint32_t call;     /* index into call_names */
} chk_rec;

typedef struct chk_log {
    _Alignas(64) _Atomic uint64_t arrived; /* epoch + 1 of the barrier this PE reached */
    uint64_t cap;                          /* records per parity */
    uint64_t n[2];                         /* records of the epochs of that parity */
    uint64_t lost[2];                      /* records that did not fit */
    chk_rec rec[];                         /* [2][cap] */
} chk_log;

static const char *const call_names[] = {
    "?",           "dmsg_deposit",    "dmsg_deposit_section", "dmsg_deposit_indexed",
    "dmsg_deposit_gathered", "dmsg_deposit_adp", "dmsg_fetch", "dmsg_fetch_section",
    "dmsg_fetch_indexed",
};

#define CHK_MAX_REPORTS 8 /* per epoch and PE; the rest are counted */

static struct {
    uint64_t log_off;   /* segment offset of every PE's log */
    uint64_t epoch;     /* barriers passed */
    uint64_t reports;   /* conflicts reported by this PE */
    uintptr_t prog_lo, prog_hi, prog_base; /* the main program's mapping */
    char prog[64];      /* its name, for reports */
} chk;

/* This PE's own log (the others' are read through the transport). */
static chk_log *my_log(void)
{
    return (chk_log *)(dmsg_g.seg + chk.log_off);
}

/* Reads len bytes at offset off of PE pe's log: through the transport's
 * fetch (the checker's own reads are neither logged nor checked), or
 * directly from this PE's own. */
static dmsg_status log_read(int pe, uint64_t off, void *dst, size_t len)
{
    if (pe == dmsg_g.tp.rank) {
        memcpy(dst, (char *)my_log() + off, len);
        return DMSG_OK;
    }
    dmsg_op op = {.kind = DMSG_OP_CONTIG,
                  .dir = DMSG_DIR_GET,
                  .pe = pe,
                  .remote = dmsg_g.seg + chk.log_off + off,
                  .local = dst,
                  .elem = 1,
                  .n = len,
                  .roff = chk.log_off + off,
                  .payload = len};
    return dmsg_g.tp.ops->get(&dmsg_g.tp, &op);
}

uint64_t dmsg_chk_bytes(uint64_t seg_size)
{
    uint64_t b = seg_size / 4;
    if (b > ((uint64_t)32 << 20))
        b = (uint64_t)32 << 20;
    b &= ~(uint64_t)4095;
    return b >= 4096 ? b : 0;
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

dmsg_status dmsg_chk_init(uint64_t off, uint64_t bytes)
{
    memset(&chk, 0, sizeof chk);
    chk.log_off = off;
    dl_iterate_phdr(find_prog, NULL);
    FILE *f = fopen("/proc/self/comm", "r");
    if (!f || !fgets(chk.prog, sizeof chk.prog, f))
        strcpy(chk.prog, "program");
    chk.prog[strcspn(chk.prog, "\n")] = '\0';
    if (f)
        fclose(f);
    chk_log *l = my_log();
    memset(l, 0, sizeof *l);
    l->cap = (bytes - sizeof *l) / (2 * sizeof(chk_rec));
    if (l->cap == 0)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "DMSG_CHECK: no room for the check log");
    return DMSG_OK;
}

/* ----------------------------------------------------------------- logging */

typedef struct chk_ctx {
    chk_log *log;
    int par;
    chk_rec proto; /* target, kind, call, where */
} chk_ctx;

/* Appends [off, off+len), merged with the previous record when it continues it. */
static void add(chk_ctx *c, uint64_t off, uint64_t len)
{
    if (len == 0)
        return;
    chk_log *l = c->log;
    chk_rec *base = l->rec + (size_t)c->par * l->cap;
    uint64_t n = l->n[c->par];
    if (n > 0) {
        chk_rec *last = &base[n - 1];
        if (last->target == c->proto.target && last->kind == c->proto.kind &&
            last->where == c->proto.where && last->off + last->len == off) {
            last->len += len;
            return;
        }
    }
    if (n == l->cap) {
        l->lost[c->par]++;
        return;
    }
    chk_rec r = c->proto;
    r.off = off;
    r.len = len;
    base[n] = r;
    l->n[c->par] = n + 1;
}

/* Every element of a section layout based at segment offset off. */
static void add_layout(chk_ctx *c, uint64_t off, const dmsg_layout *lay, size_t elem)
{
    size_t idx[DMSG_MAX_DIMS] = {0};
    int nd = lay->ndims;
    for (int d = 0; d < nd; d++)
        if (lay->count[d] == 0)
            return;
    for (;;) {
        ptrdiff_t at = 0;
        for (int d = 0; d < nd; d++)
            at += (ptrdiff_t)idx[d] * lay->stride[d];
        add(c, (uint64_t)((ptrdiff_t)off + at), elem);
        int d = 0;
        while (d < nd && ++idx[d] == lay->count[d])
            idx[d++] = 0;
        if (d == nd)
            return;
    }
}

static uint32_t call_of(const dmsg_op *op)
{
    int get = op->dir == DMSG_DIR_GET;
    switch (op->kind) {
    case DMSG_OP_CONTIG: return get ? 6 : 1;
    case DMSG_OP_SECTION: return get ? 7 : 2;
    case DMSG_OP_REMOTE_INDEXED: return get ? 8 : 3;
    case DMSG_OP_LOCAL_INDEXED: return 4;
    case DMSG_OP_ADP: return 5;
    }
    return 0;
}

void dmsg_chk_op(const dmsg_op *op, const void *ra)
{
    if (!dmsg_g.check)
        return;
    int me = dmsg_g.tp.rank, get = op->dir == DMSG_DIR_GET;
    uintptr_t a = (uintptr_t)ra;
    chk_ctx c = {.log = my_log(), .par = (int)(chk.epoch & 1)};
    c.proto.in_prog = a >= chk.prog_lo && a < chk.prog_hi;
    c.proto.where = c.proto.in_prog ? a - chk.prog_base : a;
    c.proto.call = call_of(op);
    c.proto.target = (uint16_t)op->pe;
    c.proto.kind = get ? CHK_FETCH : CHK_DEPOSIT;
    uint64_t off = op->roff;
    switch (op->kind) {
    case DMSG_OP_CONTIG: add(&c, off, op->n); break;
    case DMSG_OP_SECTION: add_layout(&c, off, op->rl, op->elem); break;
    case DMSG_OP_REMOTE_INDEXED:
        for (size_t i = 0; i < op->n; i++)
            add(&c, off + op->idx[i] * op->elem, op->elem);
        break;
    case DMSG_OP_LOCAL_INDEXED: add(&c, off, op->n * op->elem); break;
    case DMSG_OP_ADP: {
        size_t rs = dmsg_adp_record_size(op->elem);
        for (size_t i = 0; i < op->n; i++) {
            uint64_t o;
            memcpy(&o, (const char *)op->local + i * rs, sizeof o);
            add(&c, off + o, op->elem);
        }
        break;
    }
    }
    /* The local side of a contiguous transfer, when it is this PE's own
     * symmetric memory: a read (deposit source) or a write (fetch target)
     * that other PEs' deposits and fetches can race with. */
    size_t loff;
    if (op->kind == DMSG_OP_CONTIG && dmsg_addr_is_symmetric(op->local, op->n) &&
        dmsg_sym_range(op->local, op->n, &loff) == DMSG_OK) {
        c.proto.target = (uint16_t)me;
        c.proto.kind = get ? CHK_LOCAL_WRITE : CHK_LOCAL_READ;
        add(&c, loff, op->n);
    }
}

/* --------------------------------------------------------------- checking */

typedef struct chk_item {
    chk_rec r;
    int pe; /* issuer */
} chk_item;

static int by_off(const void *a, const void *b)
{
    const chk_item *x = a, *y = b;
    return x->r.off < y->r.off ? -1 : x->r.off > y->r.off;
}

static int writes(const chk_item *i)
{
    return i->r.kind == CHK_DEPOSIT || i->r.kind == CHK_LOCAL_WRITE;
}

static void describe(char *buf, size_t len, const chk_item *i)
{
    static const char *const what[] = {"?", "deposits into", "fetches", "reads (deposit source)",
                                       "writes (fetch target)"};
    int n = snprintf(buf, len, "PE %d %s them with %s", i->pe, what[i->r.kind],
                     call_names[i->r.call < 9 ? i->r.call : 0]);
    if (n < 0 || (size_t)n >= len)
        return;
    if (i->r.in_prog)
        snprintf(buf + n, len - (size_t)n, " (called from %s+0x%llx)", chk.prog,
                 (unsigned long long)i->r.where);
    else
        snprintf(buf + n, len - (size_t)n, " (called from %#llx in PE %d)",
                 (unsigned long long)i->r.where, i->pe);
}

static void report(const chk_item *a, const chk_item *b, uint64_t epoch)
{
    int me = dmsg_g.tp.rank;
    uint64_t lo = a->r.off > b->r.off ? a->r.off : b->r.off;
    uint64_t ea = a->r.off + a->r.len, eb = b->r.off + b->r.len, hi = ea < eb ? ea : eb;
    char da[256], db[256];
    describe(da, sizeof da, a);
    describe(db, sizeof db, b);
    const char *kind = writes(a) && writes(b) ? "two deposits write the same bytes"
                                              : "a fetch or read of bytes that another PE deposits";
    fprintf(stderr,
            "dmsg check: epoch %llu: %s: PE %d's bytes at segment offset %#llx..%#llx (%llu "
            "bytes, address %p on PE %d): %s; %s; no barrier orders them\n",
            (unsigned long long)epoch, kind, me, (unsigned long long)lo,
            (unsigned long long)hi, (unsigned long long)(hi - lo),
            (void *)(dmsg_g.seg + lo), me, da, db);
}

/* The records of the epoch's parity in PE p's log that concern PE me,
 * appended to items (grown as needed). */
static dmsg_status gather(int p, int par, int me, chk_item **items, size_t *k, size_t *cap)
{
    chk_log h; /* the header alone: the records follow at offsetof(chk_log, rec) */
    dmsg_status st = log_read(p, 0, &h, offsetof(chk_log, rec));
    if (st)
        return st;
    if (h.lost[par] && p == me)
        fprintf(stderr,
                "dmsg check: PE %d's check log was full; %llu ranges of its calls were not "
                "checked (a larger DMSG_SEGMENT_SIZE gives it more room)\n",
                me, (unsigned long long)h.lost[par]);
    if (h.n[par] == 0)
        return DMSG_OK;
    size_t bytes = (size_t)h.n[par] * sizeof(chk_rec);
    chk_rec *r = malloc(bytes);
    if (!r)
        return DMSG_FAIL(DMSG_ERR_NOMEM, "DMSG_CHECK: %zu bytes of records", bytes);
    st = log_read(p, offsetof(chk_log, rec) + (size_t)par * h.cap * sizeof(chk_rec), r, bytes);
    for (uint64_t i = 0; !st && i < h.n[par]; i++) {
        if (r[i].target != me)
            continue;
        if (*k == *cap) {
            size_t ncap = *cap ? 2 * *cap : 64;
            chk_item *t = realloc(*items, ncap * sizeof *t);
            if (!t) {
                st = DMSG_FAIL(DMSG_ERR_NOMEM, "DMSG_CHECK: %zu records", ncap);
                break;
            }
            *items = t;
            *cap = ncap;
        }
        (*items)[(*k)++] = (chk_item){r[i], p};
    }
    free(r);
    return st;
}

static void check_epoch(uint64_t epoch)
{
    int me = dmsg_g.tp.rank, par = (int)(epoch & 1);
    chk_item *items = NULL;
    size_t k = 0, cap = 0;
    for (int p = 0; p < dmsg_g.tp.npes; p++)
        if (gather(p, par, me, &items, &k, &cap) != DMSG_OK) {
            fprintf(stderr, "dmsg check: epoch %llu: PE %d could not read PE %d's check log\n",
                    (unsigned long long)epoch, me, p);
            free(items);
            return;
        }
    if (k > 1)
        qsort(items, k, sizeof *items, by_off);
    uint64_t found = 0;
    for (size_t i = 0; i < k; i++) {
        uint64_t end = items[i].r.off + items[i].r.len;
        for (size_t j = i + 1; j < k && items[j].r.off < end; j++) {
            if (items[j].pe == items[i].pe || (!writes(&items[i]) && !writes(&items[j])))
                continue;
            if (found++ < CHK_MAX_REPORTS)
                report(&items[i], &items[j], epoch);
        }
    }
    if (found > CHK_MAX_REPORTS)
        fprintf(stderr, "dmsg check: epoch %llu: PE %d: %llu more conflicts not shown\n",
                (unsigned long long)epoch, me, (unsigned long long)(found - CHK_MAX_REPORTS));
    chk.reports += found;
    free(items);
}

void dmsg_chk_arrive(void)
{
    if (dmsg_g.check)
        atomic_store_explicit(&my_log()->arrived, chk.epoch + 1, memory_order_release);
}

void dmsg_chk_epoch_end(void)
{
    if (!dmsg_g.check)
        return;
    check_epoch(chk.epoch);
    chk.epoch++;
    /* Nobody reads this parity's records any more: they are two epochs old. */
    chk_log *l = my_log();
    l->n[chk.epoch & 1] = 0;
    l->lost[chk.epoch & 1] = 0;
}

/* 1 when every other PE has reached the barrier that ends this epoch. */
static int others_arrived(void)
{
    for (int p = 0; p < dmsg_g.tp.npes; p++) {
        uint64_t arrived = 0;
        if (p != dmsg_g.tp.rank &&
            (log_read(p, 0, &arrived, sizeof arrived) != DMSG_OK || arrived != chk.epoch + 1))
            return 0;
    }
    return 1;
}

dmsg_status dmsg_chk_await(uint32_t slot, int bytes_mode, uint64_t n, const void *ra)
{
    dmsg_tp *tp = &dmsg_g.tp;
    for (unsigned spins = 0;; spins++) {
        uint64_t m, b;
        tp->ops->ctr_read(tp, slot, &m, &b);
        if ((bytes_mode ? b : m) >= n)
            return tp->ops->ctr_wait(tp, slot, bytes_mode, n);
        if (others_arrived()) {
            /* Deposits are complete when their issuer reaches a barrier. */
            tp->ops->ctr_read(tp, slot, &m, &b);
            if ((bytes_mode ? b : m) >= n)
                return tp->ops->ctr_wait(tp, slot, bytes_mode, n);
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
        if (spins > 1000) {
            struct timespec ts = {0, 200000};
            nanosleep(&ts, NULL);
        }
    }
}

void dmsg_chk_finalize(void)
{
    if (dmsg_g.check && chk.reports)
        fprintf(stderr, "dmsg check: PE %d: %llu reports in %llu epochs\n", dmsg_g.tp.rank,
                (unsigned long long)chk.reports, (unsigned long long)chk.epoch);
}
