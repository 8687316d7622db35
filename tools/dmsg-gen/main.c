/*
 * dmsg-gen - a code generator for array assignments on distributed arrays.
 *
 *   dmsg-gen [-m MACHINE] [--mech model|direct|pack] [--store section|adp] [-o OUT.c] FILE.dgen
 *
 * Reads a description (processor grids, distributed arrays, assignment
 * statements; docs/compiler.md) and writes a C program with one function per
 * statement, specialized for it: every section, count and offset computed
 * here and stored as constants, the partners in staggered order, pack and
 * unpack loops specialized per element size and unrolled by 8, the
 * mechanism of each pair chosen by the copy-transfer model of MACHINE, and
 * one barrier and one await of a count fixed at generation time. A driver
 * main initializes the arrays, runs the statements and checks every element
 * against a serial evaluation. The generated code includes only dmsg.h and
 * dmsg_plan.h. Errors name FILE:LINE:COLUMN; exit status 2 (usage), 1 (error).
 *
 * The sections come from dmsg_assign_pieces (the closed form the library's
 * plans use); the mechanism from the plan layer's model choice. The parts
 * are listed in gen.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "dmsg/model/machine.h"
#include "tools/dmsg-gen/gen.h"

/* The description's text. An input that cannot be read says why (errno's
 * text, or that it is a directory: fopen accepts one); a NUL byte, which
 * would end the text early, is refused at its line and column. */
static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    struct stat sb;
    if (f == NULL || fstat(fileno(f), &sb) != 0) {
        fprintf(stderr, "dmsg-gen: %s: %s\n", path, strerror(errno));
        exit(1);
    }
    if (S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "dmsg-gen: %s: is a directory, not a description\n", path);
        exit(1);
    }
    size_t cap = 4096, n = 0;
    char *buf = gen_xmalloc(cap);
    size_t r;
    while ((r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += r;
        if (n + 1 == cap) buf = gen_xrealloc(buf, cap *= 2);
    }
    if (ferror(f)) {
        fprintf(stderr, "dmsg-gen: %s: %s\n", path, strerror(errno));
        exit(1);
    }
    fclose(f);
    buf[n] = '\0';
    const char *nul = memchr(buf, '\0', n);
    if (nul != NULL) {
        int line = 1;
        const char *ls = buf;
        for (const char *c = buf; c < nul; c++)
            if (*c == '\n') {
                line++;
                ls = c + 1;
            }
        fprintf(stderr, "%s:%d:%d: error: a NUL byte: a description is text\n", path, line,
                (int)(nul - ls) + 1);
        exit(1);
    }
    return buf;
}

/* The built-in machines, as the model knows them (so the help and what -m
 * accepts cannot disagree). */
static void machine_names(FILE *f)
{
    for (int i = 0; i < dmsg_machine_nbuiltins; i++)
        fprintf(f, "%s%s", i ? ", " : "", dmsg_machine_builtins[i].name);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: dmsg-gen [-m MACHINE] [--mech model|direct|pack] [--store section|adp]\n"
               "                [-o OUT.c] FILE.dgen\n"
               "  -m MACHINE   machine whose copy-transfer model picks packing or chaining per\n"
               "               pair: a built-in (");
    machine_names(f);
    fprintf(f, ")\n"
               "               or a .machine file; without it, every pair is chained (direct\n"
               "               section deposits)\n"
               "  --mech M     model (default), direct or pack for every pair\n"
               "  --store S    how chained pairs store: section (default: one section deposit\n"
               "               per piece) or adp (address-data records built by a loop unrolled\n"
               "               by 8, one dmsg_deposit_adp per piece; 4, 8, 16-byte elements)\n"
               "  -o OUT.c     output file (default: standard output)\n"
               "The description language: docs/compiler.md.\n");
}

int main(int argc, char **argv)
{
    const char *machine = NULL, *out = NULL, *file = NULL;
    gen_mech mech = MECH_MODEL;
    int store_adp = 0; /* --store adp: chained pieces as address-data records */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "-m") == 0 && i + 1 < argc) {
            machine = argv[++i];
        } else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else if (strcmp(argv[i], "--store") == 0 && i + 1 < argc) {
            const char *m = argv[++i];
            if (strcmp(m, "adp") == 0 || strcmp(m, "section") == 0) {
                store_adp = strcmp(m, "adp") == 0;
            } else {
                fprintf(stderr, "dmsg-gen: unknown store form '%s'\n", m);
                usage(stderr);
                return 2;
            }
        } else if (strcmp(argv[i], "--mech") == 0 && i + 1 < argc) {
            const char *m = argv[++i];
            if (strcmp(m, "model") == 0)
                mech = MECH_MODEL;
            else if (strcmp(m, "direct") == 0)
                mech = MECH_DIRECT;
            else if (strcmp(m, "pack") == 0)
                mech = MECH_PACK;
            else {
                fprintf(stderr, "dmsg-gen: unknown mechanism '%s'\n", m);
                usage(stderr);
                return 2;
            }
        } else if (argv[i][0] == '-' || file != NULL) {
            fprintf(stderr, "dmsg-gen: unexpected argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        } else {
            file = argv[i];
        }
    }
    if (file == NULL) {
        usage(stderr);
        return 2;
    }
    plan_model *model = NULL;
    if (machine != NULL) {
        dmsg_machine m;
        int bad_machine = dmsg_machine_load(machine, &m) != DMSG_OK;
        if (bad_machine || dmsg_plan_model_open(machine, &model) != DMSG_OK) {
            /* The model's message names the built-ins where the name is unknown. */
            if (bad_machine) {
                fprintf(stderr, "dmsg-gen: -m %s: %s\n", machine, dmsg_last_error());
            } else {
                fprintf(stderr, "dmsg-gen: -m %s: cannot be loaded (built-in: ", machine);
                machine_names(stderr);
                fprintf(stderr, ")\n");
            }
            return 2;
        }
    }
    char *text = read_file(file);
    static input in;
    gen_parse(file, text, &in);
    gstmt *gs = gen_xmalloc((size_t)in.nstmts * sizeof *gs);
    size_t stage = 0;
    for (int i = 0; i < in.nstmts; i++)
        gen_fold_stmt(&in, &in.stmts[i], mech, model, &gs[i], &stage);
    FILE *o = out != NULL ? fopen(out, "w") : stdout;
    if (o == NULL) {
        fprintf(stderr, "dmsg-gen: %s: %s\n", out, strerror(errno));
        return 1;
    }
    const char *mech_name = mech == MECH_PACK     ? "pack"
                            : mech == MECH_DIRECT ? "direct"
                            : machine != NULL     ? "model"
                                                  : "direct (no machine given)";
    gen_emit_header(o, &in, machine, mech_name);
    gen_emit_arrays(o, &in);
    int sizes[17] = {0};
    for (int i = 0; i < in.nstmts; i++)
        for (size_t k = 0; k < gs[i].npeers; k++)
            if (gs[i].peers[k].packed) sizes[in.arrays[in.stmts[i].src].desc.elem_size] = 1;
    for (size_t e = 1; e <= 16; e++)
        if (sizes[e]) gen_emit_pack_loops(o, e);
    int adp_sizes[17] = {0};
    for (int i = 0; store_adp && i < in.nstmts; i++) {
        size_t e = in.arrays[in.stmts[i].src].desc.elem_size;
        adp_sizes[e] = e == 4 || e == 8 || e == 16;
    }
    for (size_t e = 1; e <= 16; e++)
        if (adp_sizes[e]) gen_emit_adp_loop(o, e);
    for (int i = 0; i < in.nstmts; i++) {
        size_t e = in.arrays[in.stmts[i].src].desc.elem_size;
        gen_emit_stmt(o, &in, &in.stmts[i], &gs[i], adp_sizes[e]);
        gen_emit_serial(o, &in, &in.stmts[i]);
    }
    gen_emit_main(o, &in, stage);
    if (o != stdout && fclose(o) != 0) {
        fprintf(stderr, "dmsg-gen: %s: write failed\n", out);
        return 1;
    }
    for (int i = 0; i < in.nstmts; i++)
        gen_fold_free(&gs[i]);
    free(gs);
    free(text);
    dmsg_plan_model_close(model);
    return 0;
}
