/* dmsg-gen's emitter: the head of the generated file, the array
 * descriptors, the unrolled pack and address-data loops per element size,
 * and per statement its constant tables and its function (the Catacomb
 * template: one dmsg_sync, the partners in staggered order, one await). */
#include <stdlib.h>
#include <string.h>
#include "tools/dmsg-gen/gen.h"

static void emit_layout(FILE *o, const dmsg_layout *l)
{
    fprintf(o, "{%d, {", l->ndims);
    for (int d = 0; d < l->ndims; d++)
        fprintf(o, "%s%zu", d ? ", " : "", l->count[d]);
    fprintf(o, "}, {");
    for (int d = 0; d < l->ndims; d++)
        fprintf(o, "%s%td", d ? ", " : "", l->stride[d]);
    fprintf(o, "}}");
}

static const char *dist_name(const dmsg_darray_desc *d, int k, char *buf, size_t len)
{
    switch (d->dist[k]) {
    case DMSG_DIST_BLOCK:
        if (d->block[k])
            snprintf(buf, len, "block(%zu)@%d", d->block[k], d->onto[k]);
        else
            snprintf(buf, len, "block@%d", d->onto[k]);
        break;
    case DMSG_DIST_CYCLIC:
        snprintf(buf, len, "cyclic(%zu)@%d", d->block[k] ? d->block[k] : 1, d->onto[k]);
        break;
    default:
        snprintf(buf, len, "*");
        break;
    }
    return buf;
}

/* The element copy of the unrolled pack loops, per element size. */
static const char *elem_ctype(size_t e)
{
    switch (e) {
    case 1:
        return "uint8_t";
    case 2:
        return "uint16_t";
    case 4:
        return "uint32_t";
    case 8:
        return "uint64_t";
    case 16:
        return "gen_complex";
    default:
        return NULL;
    }
}

/* gather_E / scatter_E: an n-D section to or from a contiguous buffer,
 * innermost dimension unrolled by 8 (the Catacomb templates' DPACK loops). */
void gen_emit_pack_loops(FILE *o, size_t e)
{
    const char *t = elem_ctype(e);
    for (int scatter = 0; scatter < 2; scatter++) {
        fprintf(o,
                "\n/* %s of %zu-byte elements: the section l at %s %s a contiguous buffer,\n"
                " * the innermost dimension unrolled by 8. */\n",
                scatter ? "Scatter" : "Gather", e, scatter ? "dst" : "src",
                scatter ? "from" : "into");
        if (scatter)
            fprintf(o,
                    "static void scatter_%zu(char *sec, const dmsg_layout *l, const char *buf)\n",
                    e);
        else
            fprintf(o, "static void gather_%zu(char *buf, const char *sec, const dmsg_layout *l)\n",
                    e);
        fprintf(o,
                "{\n"
                "    size_t idx[DMSG_MAX_DIMS] = {0};\n"
                "    const size_t n = l->count[0];\n"
                "    const ptrdiff_t s = l->stride[0];\n"
                "    for (;;) {\n"
                "        %schar *p = sec;\n"
                "        for (int d = 1; d < l->ndims; d++)\n"
                "            p += (ptrdiff_t)idx[d] * l->stride[d];\n"
                "        size_t i = 0;\n"
                "        for (; i + 8 <= n; i += 8, p += 8 * s, buf += 8 * %zu) {\n",
                scatter ? "" : "const ", e);
        const char *fmt = scatter ? "            memcpy(p + %d * s, buf + %d * %zu, sizeof(%s));\n"
                                  : "            memcpy(buf + %d * %zu, p + %d * s, sizeof(%s));\n";
        for (int k = 0; k < 8; k++) {
            if (scatter)
                fprintf(o, fmt, k, k, e, t);
            else
                fprintf(o, fmt, k, e, k, t);
        }
        fprintf(o,
                "        }\n"
                "        for (; i < n; i++, p += s, buf += %zu)\n"
                "            memcpy(%s, sizeof(%s));\n"
                "        int d = 1;\n"
                "        while (d < l->ndims && ++idx[d] == l->count[d])\n"
                "            idx[d++] = 0;\n"
                "        if (d >= l->ndims)\n"
                "            return;\n"
                "    }\n"
                "}\n",
                e, scatter ? "p, buf" : "buf, p", t);
    }
}

/* adp_E: address-data records of one piece, source values with their
 * destination byte offsets, the innermost dimension unrolled by 8 (the
 * Catacomb template's DPACKADP16_8 for 16-byte elements). */
void gen_emit_adp_loop(FILE *o, size_t e)
{
    fprintf(o,
            "\n/* Address-data records of %zu-byte elements for one piece: each source value\n"
            " * with the byte offset of its destination, innermost dimension unrolled by 8. */\n"
            "static void adp_%zu(dmsg_adp%zu *rec, const char *sec, const dmsg_layout *sl,\n"
            "                   const dmsg_layout *dl, size_t dst_off)\n{\n"
            "    size_t idx[DMSG_MAX_DIMS] = {0};\n"
            "    const size_t n = sl->count[0];\n"
            "    const ptrdiff_t s = sl->stride[0], t = dl->stride[0];\n"
            "    for (;;) {\n"
            "        const char *p = sec;\n"
            "        ptrdiff_t q = (ptrdiff_t)dst_off;\n"
            "        for (int d = 1; d < sl->ndims; d++) {\n"
            "            p += (ptrdiff_t)idx[d] * sl->stride[d];\n"
            "            q += (ptrdiff_t)idx[d] * dl->stride[d];\n"
            "        }\n"
            "        size_t i = 0;\n"
            "        for (; i + 8 <= n; i += 8, p += 8 * s, q += 8 * t, rec += 8) {\n",
            e, e, e);
    for (int k = 0; k < 8; k++)
        fprintf(o,
                "            rec[%d].off = (uint64_t)(q + %d * t);\n"
                "            memcpy(&rec[%d].val, p + %d * s, %zu);\n",
                k, k, k, k, e);
    fprintf(o,
            "        }\n"
            "        for (; i < n; i++, p += s, q += t, rec++) {\n"
            "            rec->off = (uint64_t)q;\n"
            "            memcpy(&rec->val, p, %zu);\n"
            "        }\n"
            "        int d = 1;\n"
            "        while (d < sl->ndims && ++idx[d] == sl->count[d])\n"
            "            idx[d++] = 0;\n"
            "        if (d >= sl->ndims)\n"
            "            return;\n"
            "    }\n}\n",
            e);
}

void gen_emit_header(FILE *o, const input *in, const char *machine, const char *mech)
{
    fprintf(o, "/*\n * Generated by dmsg-gen from %s for %d PEs; mechanism: %s", in->file, in->npes,
            mech);
    if (machine != NULL) fprintf(o, " (model of machine %s)", machine);
    fprintf(o,
            ".\n * Do not edit: edit the description and generate again.\n *\n"
            " *   dmsgrun -n %d ./prog [runs]\n *\n"
            " * Every statement function is one communication step of the deposit model:\n"
            " * a dmsg_sync for clearance, deposits to the partners in staggered order\n"
            " * (pieces and counts computed at generation time), and one dmsg_await of\n"
            " * the number of deposits this PE receives. main() checks every element\n"
            " * against a serial evaluation of the statements.\n */\n",
            in->npes);
    fprintf(o,
            "#include <dmsg.h>\n#include <dmsg_plan.h>\n#include <stdint.h>\n"
            "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\n"
            "#define GEN_NPES %d\n\n"
            "typedef struct gen_complex {\n    double re, im;\n} gen_complex;\n\n"
            "/* One partner of a sender: pieces [first, first + n) of the statement's table;\n"
            " * packed: gathered into one deposit at stage_off of the partner's staging\n"
            " * area (bytes long), else one section deposit per piece. A packed pair whose\n"
            " * first ngrp pieces are a periodic pattern gathers them by its own loop over\n"
            " * the periods (gather; gbytes long, first in the chunk), and the receiver\n"
            " * scatters them by the matching loop (scatter). */\n"
            "typedef struct gen_peer {\n    int pe, packed;\n    uint32_t first, n;\n"
            "    size_t bytes, stage_off;\n    uint32_t ngrp;\n    size_t gbytes;\n"
            "    void (*gather)(char *buf, const char *src);\n"
            "    void (*scatter)(char *dst, const char *buf);\n} gen_peer;\n",
            in->npes);
}

void gen_emit_arrays(FILE *o, const input *in)
{
    fprintf(o, "\n/* ---- arrays */\n\nenum { ");
    for (int i = 0; i < in->narrays; i++)
        fprintf(o, "%sARR_%s", i ? ", " : "", in->arrays[i].name);
    fprintf(o, ", NARRAYS };\n\n");
    fprintf(o, "static const char *const array_name[NARRAYS] = {");
    for (int i = 0; i < in->narrays; i++)
        fprintf(o, "%s\"%s\"", i ? ", " : "", in->arrays[i].name);
    fprintf(o, "};\n\nstatic const dmsg_darray_desc array_desc[NARRAYS] = {\n");
    for (int i = 0; i < in->narrays; i++) {
        const dmsg_darray_desc *d = &in->arrays[i].desc;
        char buf[48];
        fprintf(o, "    /* %s: %s, dist (", in->arrays[i].name, in->arrays[i].type);
        for (int k = 0; k < d->ndims; k++)
            fprintf(o, "%s%s", k ? ", " : "", dist_name(d, k, buf, sizeof buf));
        fprintf(o, "), %zu bytes per PE%s */\n", in->arrays[i].da.bytes,
                gen_replicated(d) ? ", replicated: a copy on every PE of its grid" : "");
        fprintf(o, "    {.ndims = %d, .elem_size = %zu, .grid_ndims = %d,\n", d->ndims,
                d->elem_size, d->grid_ndims);
#define ROW(field, fmt)                                                                            \
    do {                                                                                           \
        fprintf(o, "     ." #field " = {");                                                        \
        for (int k = 0; k < (strcmp(#field, "grid") == 0 ? d->grid_ndims : d->ndims); k++)         \
            fprintf(o, "%s" fmt, k ? ", " : "", d->field[k]);                                      \
        fprintf(o, "},\n");                                                                        \
    } while (0)
        ROW(extent, "%zu");
        ROW(grid, "%d");
        ROW(dist, "%d");
        ROW(block, "%zu");
        ROW(onto, "%d");
        ROW(halo_lo, "%zu");
        ROW(halo_hi, "%zu");
        ROW(pad, "%zu");
#undef ROW
        fprintf(o, "    },\n");
    }
    fprintf(o, "};\n");
}

/* The copies of one period's runs: those with reps > r where r >= full
 * (a last, partial period), every run where all. Gather: from the array at
 * (o + soff) to the buffer, back to back; scatter: the other way, to the
 * array at (o + doff). */
static size_t emit_period(FILE *o, const gloop *lp, int scatter, int all, size_t r,
                          const char *ind)
{
    size_t b = 0;
    for (size_t k = 0; k < lp->grp->nruns; k++) {
        const dmsg_prun *run = &lp->grp->run[k];
        if (!all && run->reps <= r) continue;
        if (scatter)
            fprintf(o, "%smemcpy(dst + (o + %td), buf + %zu, %zu);\n", ind, run->doff, b,
                    run->bytes);
        else
            fprintf(o, "%smemcpy(buf + %zu, src + (o + %td), %zu);\n", ind, b, run->soff,
                    run->bytes);
        b += run->bytes;
    }
    return b;
}

/* LABEL_gather_I and LABEL_scatter_I of pair i's periodic group: for each
 * period, for each run of the period, one fixed-size copy (the compiler
 * makes each a move or two); the periods advance the array side by the
 * group's stride and the buffer by the period's payload. */
static void emit_loops(FILE *o, const char *label, size_t i, int p, const gpeer *pr)
{
    const gloop *lp = &pr->loop;
    fprintf(o,
            "\n/* Pair %zu, PE %d -> PE %d: %zu periodic pieces as %zu runs a period, %zu whole\n"
            " * periods%s; a period is %td bytes of the source, %td of the\n"
            " * destination. */\n",
            i, p, pr->q, lp->npieces, lp->grp->nruns, lp->full,
            lp->periods > lp->full ? " and a partial one" : "", lp->grp->sstride,
            lp->grp->dstride);
    for (int scatter = 0; scatter < 2; scatter++) {
        ptrdiff_t st = scatter ? lp->grp->dstride : lp->grp->sstride;
        if (scatter)
            fprintf(o, "static void %s_scatter_%zu(char *dst, const char *buf)\n{\n", label, i);
        else
            fprintf(o, "static void %s_gather_%zu(char *buf, const char *src)\n{\n", label, i);
        fprintf(o,
                "    ptrdiff_t o = 0;\n"
                "    for (size_t r = 0; r < %zu; r++, o += %td, buf += %zu) {\n",
                lp->full, st, lp->period_bytes);
        emit_period(o, lp, scatter, 1, 0, "        ");
        fprintf(o, "    }\n");
        for (size_t r = lp->full; r < lp->periods; r++) {
            size_t b = emit_period(o, lp, scatter, 0, r, "    ");
            if (r + 1 < lp->periods) fprintf(o, "    o += %td;\n    buf += %zu;\n", st, b);
        }
        fprintf(o, "    (void)o;\n}\n");
    }
}

void gen_emit_stmt(FILE *o, const input *in, const stmt *s, const gstmt *g, int adp)
{
    const array *A = &in->arrays[s->src], *B = &in->arrays[s->dst];
    size_t e = A->desc.elem_size;
    size_t packed = 0;
    for (size_t i = 0; i < g->npeers; i++)
        packed += g->peers[i].packed;
    fprintf(o, "\n/* ---- statement %s (%s:%d): %s\n", s->label, in->file, s->line, s->text);
    fprintf(o, " * %zu pieces in %zu pairs, %zu pairs packed", g->npieces, g->npeers, packed);
    if (g->mbs_direct > 0)
        fprintf(o, "; model: direct %.1f MB/s, packed %.1f MB/s", g->mbs_direct, g->mbs_pack);
    fprintf(o, ". */\n\n");
    fprintf(o, "static const dmsg_piece %s_pieces[%zu] = {\n", s->label,
            g->npieces ? g->npieces : 1);
    for (size_t k = 0; k < g->npieces; k++) {
        const dmsg_piece *pc = &g->pieces[k];
        fprintf(o, "    {%zu, ", pc->src_off);
        emit_layout(o, &pc->src);
        fprintf(o, ", %zu, ", pc->dst_off);
        emit_layout(o, &pc->dst);
        fprintf(o, ", %zu},\n", pc->elems);
    }
    fprintf(o, "};\n");
    for (int p = 0; p < in->npes; p++)
        for (size_t i = g->peer_first[p]; i < g->peer_first[p + 1]; i++)
            if (g->peers[i].packed && g->peers[i].loop.grp != NULL)
                emit_loops(o, s->label, i, p, &g->peers[i]);
    fprintf(o, "\n/* Partners of each sender, staggered: sender p's are [first[p], first[p+1]). */\n");
    fprintf(o, "static const gen_peer %s_peers[%zu] = {\n", s->label, g->npeers ? g->npeers : 1);
    for (size_t i = 0; i < g->npeers; i++) {
        const gpeer *pr = &g->peers[i];
        fprintf(o, "    {%d, %d, %zu, %zu, %zu, %zu", pr->q, pr->packed, pr->first, pr->n,
                pr->bytes, pr->stage_off);
        if (pr->packed && pr->loop.grp != NULL)
            fprintf(o, ", %zu, %llu, %s_gather_%zu, %s_scatter_%zu},\n", pr->loop.npieces,
                    (unsigned long long)pr->loop.grp->bytes, s->label, i, s->label, i);
        else
            fprintf(o, ", 0, 0, NULL, NULL},\n");
    }
    fprintf(o, "};\nstatic const uint32_t %s_first[GEN_NPES + 1] = {", s->label);
    for (int p = 0; p <= in->npes; p++)
        fprintf(o, "%s%zu", p ? ", " : "", g->peer_first[p]);
    fprintf(o, "};\n/* Deposits each PE receives (a packed pair counts once). */\n");
    fprintf(o, "static const uint64_t %s_recv[GEN_NPES] = {", s->label);
    for (int p = 0; p < in->npes; p++)
        fprintf(o, "%s%llu", p ? ", " : "", (unsigned long long)g->recv_msgs[p]);
    fprintf(o, "};\n");
    if (packed) {
        /* Receivers of packed chunks: per receiver, the senders' peer entries. */
        fprintf(o, "/* Packed chunks each PE unpacks: indices into %s_peers, per receiver. */\n",
                s->label);
        size_t *cnt = gen_xmalloc(((size_t)in->npes + 1) * sizeof *cnt);
        fprintf(o, "static const uint32_t %s_unpack[%zu] = {", s->label, packed);
        size_t n = 0;
        for (int q = 0; q < in->npes; q++) {
            cnt[q] = n;
            for (size_t i = 0; i < g->npeers; i++)
                if (g->peers[i].packed && g->peers[i].q == q)
                    fprintf(o, "%s%zu", n++ ? ", " : "", i);
        }
        cnt[in->npes] = n;
        fprintf(o, "};\nstatic const uint32_t %s_unpack_first[GEN_NPES + 1] = {", s->label);
        for (int q = 0; q <= in->npes; q++)
            fprintf(o, "%s%zu", q ? ", " : "", cnt[q]);
        fprintf(o, "};\n");
        free(cnt);
        fprintf(o, "static _Alignas(64) char %s_sendbuf[%zu];\n", s->label, g->send_max);
    }
    if (adp) {
        size_t most = 1;
        for (size_t k = 0; k < g->npieces; k++)
            most = g->pieces[k].elems > most ? g->pieces[k].elems : most;
        fprintf(o, "static dmsg_adp%zu %s_recs[%zu]; /* the largest piece's records */\n", e,
                s->label, most);
    }
    fprintf(o, "\n/* %s: %s (%s, %s: the arrays' storage on this PE) */\n", s->label, s->text,
            B->name, A->name);
    fprintf(o, "static int stmt_%s(char *%s, const char *%s, char *stage, dmsg_ctr ctr)\n{\n",
            s->label, B->name, A->name);
    fprintf(o,
            "    const int me = dmsg_pe();\n"
            "    int st = dmsg_sync(); /* clearance: every PE is done with its part of %s */\n"
            "    if (st != DMSG_OK)\n        return st;\n",
            B->name);
    fprintf(o, "    for (uint32_t i = %s_first[me]; i < %s_first[me + 1]; i++) {\n", s->label,
            s->label);
    fprintf(o, "        const gen_peer *pr = &%s_peers[i];\n", s->label);
    fprintf(o, "        const dmsg_piece *pc = &%s_pieces[pr->first], *end = pc + pr->n;\n",
            s->label);
    if (packed) {
        fprintf(o,
                "        if (pr->packed) { /* gather, then one contiguous deposit */\n"
                "            char *buf = %s_sendbuf;\n"
                "            if (pr->gather != NULL) { /* the periodic pieces: one loop */\n"
                "                pr->gather(buf, %s);\n"
                "                buf += pr->gbytes;\n"
                "                pc += pr->ngrp;\n"
                "            }\n"
                "            for (; pc < end; buf += pc->elems * %zu, pc++)\n"
                "                gather_%zu(buf, %s + pc->src_off, &pc->src);\n"
                "            st = dmsg_deposit(stage + pr->stage_off, %s_sendbuf, pr->bytes, "
                "pr->pe, ctr);\n"
                "            if (st != DMSG_OK)\n                return st;\n"
                "            continue;\n        }\n",
                s->label, A->name, e, e, A->name, s->label);
    }
    if (adp) {
        fprintf(o,
                "        for (; pc < end; pc++) { /* chained: address-data records, one deposit "
                "per piece */\n"
                "            adp_%zu(%s_recs, %s + pc->src_off, &pc->src, &pc->dst, pc->dst_off);\n"
                "            st = dmsg_deposit_adp(%s, %s_recs, pc->elems, %zu, pr->pe, ctr);\n"
                "            if (st != DMSG_OK)\n                return st;\n"
                "        }\n    }\n",
                e, s->label, A->name, B->name, s->label, e);
    } else {
        fprintf(
            o,
            "        for (; pc < end; pc++) { /* chained: one section deposit per piece */\n"
            "            st = dmsg_deposit_section(%s + pc->dst_off, &pc->dst, %s + pc->src_off,\n"
            "                                      &pc->src, %zu, pr->pe, ctr);\n"
            "            if (st != DMSG_OK)\n                return st;\n"
            "        }\n    }\n",
            B->name, A->name, e);
    }
    fprintf(o,
            "    st = dmsg_await(ctr, %s_recv[me]); /* my part of %s has landed */\n"
            "    if (st != DMSG_OK)\n        return st;\n",
            s->label, B->name);
    if (packed)
        fprintf(o,
                "    for (uint32_t u = %s_unpack_first[me]; u < %s_unpack_first[me + 1]; u++) {\n"
                "        const gen_peer *pr = &%s_peers[%s_unpack[u]];\n"
                "        const char *buf = stage + pr->stage_off;\n"
                "        const dmsg_piece *pc = &%s_pieces[pr->first], *end = pc + pr->n;\n"
                "        if (pr->scatter != NULL) { /* the periodic pieces: one loop */\n"
                "            pr->scatter(%s, buf);\n"
                "            buf += pr->gbytes;\n"
                "            pc += pr->ngrp;\n"
                "        }\n"
                "        for (; pc < end; buf += pc->elems * %zu, pc++)\n"
                "            scatter_%zu(%s + pc->dst_off, &pc->dst, buf);\n"
                "    }\n",
                s->label, s->label, s->label, s->label, s->label, B->name, e, e, B->name);
    (void)s;
    fprintf(o, "    (void)stage;\n    return DMSG_OK;\n}\n");
}
