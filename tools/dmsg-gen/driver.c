/* dmsg-gen's driver emitter: the serial evaluation of each statement on
 * whole-array images and the main() that initializes the arrays, runs the
 * statements and compares every element a PE owns with the serial result. */
#include <string.h>
#include "tools/dmsg-gen/gen.h"

/* Serial evaluation: the statement on whole-array images (dimension 0
 * fastest), with its bounds and coefficients as constants. */
void gen_emit_serial(FILE *o, const input *in, const stmt *s)
{
    const array *A = &in->arrays[s->src], *B = &in->arrays[s->dst];
    size_t e = A->desc.elem_size;
    long long ga[DMSG_MAX_DIMS], gb[DMSG_MAX_DIMS], base_a = 0, base_b = 0, m = 1;
    for (int d = 0; d < A->desc.ndims; d++)
        ga[d] = d == 0 ? 1 : ga[d - 1] * (long long)A->desc.extent[d - 1];
    for (int d = 0; d < B->desc.ndims; d++)
        gb[d] = d == 0 ? 1 : gb[d - 1] * (long long)B->desc.extent[d - 1];
    for (int d = 0; d < A->desc.ndims; d++)
        base_a += (long long)s->ssec.lo[d] * ga[d];
    for (int d = 0; d < B->desc.ndims; d++)
        base_b += (long long)s->dsec.lo[d] * gb[d];
    fprintf(o, "\nstatic void serial_%s(unsigned char *%s, const unsigned char *%s)\n{\n", s->label,
            B->name, A->name);
    int depth = 0;
    char ia[512] = "", ib[512] = "";
    for (int d = B->desc.ndims - 1; d >= 0; d--) {
        int da = s->perm[d];
        if (da < 0) continue;
        size_t cnt = gen_sec_count(&s->dsec, d);
        m *= (long long)cnt;
        fprintf(o, "%*sfor (long long t%d = 0; t%d < %zu; t%d++)\n", 4 * (depth + 1), "", d, d, cnt,
                d);
        depth++;
        size_t la = strlen(ia), lb = strlen(ib);
        snprintf(ia + la, sizeof ia - la, " + t%d * %lld", d, (long long)s->ssec.step[da] * ga[da]);
        snprintf(ib + lb, sizeof ib - lb, " + t%d * %lld", d, (long long)s->dsec.step[d] * gb[d]);
    }
    fprintf(o, "%*smemcpy(%s + (size_t)(%lld%s) * %zu, %s + (size_t)(%lld%s) * %zu, %zu);\n",
            4 * (depth + 1), "", B->name, base_b, ib, e, A->name, base_a, ia, e, e);
    (void)m;
    fprintf(o, "}\n");
}

void gen_emit_main(FILE *o, const input *in, size_t stage)
{
    fprintf(o,
            "\n/* ---- driver */\n\n"
            "/* Byte j of element lin of array a, before any statement ran. */\n"
            "static unsigned char initial(int a, size_t lin, size_t j)\n{\n"
            "    uint64_t x = (lin + 1) * 0x9E3779B97F4A7C15ull ^ ((uint64_t)(a + 1) << 40) ^ "
            "(j * 131);\n"
            "    x ^= x >> 29;\n    return (unsigned char)(x * 0xBF58476D1CE4E5B9ull >> 56);\n}\n");
    fprintf(o, "\nstatic size_t elements(const dmsg_darray *a)\n{\n    size_t n = 1;\n"
               "    for (int d = 0; d < a->desc.ndims; d++)\n        n *= a->desc.extent[d];\n"
               "    return n;\n}\n"
               "\nstatic void unlinear(const dmsg_darray *a, size_t lin, size_t *g)\n{\n"
               "    for (int d = 0; d < a->desc.ndims; d++) {\n"
               "        g[d] = lin %% a->desc.extent[d];\n        lin /= a->desc.extent[d];\n"
               "    }\n}\n");
    fprintf(o,
            "\n/* Copies image elements this PE owns into (or compares them with) its\n"
            " * storage; returns the number of differing elements when comparing. */\n"
            "static size_t local_part(const dmsg_darray *a, unsigned char *img, int compare,\n"
            "                         const char *name)\n{\n"
            "    size_t n = elements(a), e = a->desc.elem_size, bad = 0, g[DMSG_MAX_DIMS], off;\n"
            "    int pe, copy = dmsg_pe() < a->grid_pes; /* replicated: a copy on each grid PE */\n"
            "    for (int d = 0; d < a->desc.ndims; d++)\n"
            "        copy &= a->desc.dist[d] == DMSG_DIST_NONE;\n"
            "    for (size_t lin = 0; lin < n; lin++) {\n"
            "        unlinear(a, lin, g);\n"
            "        if (dmsg_darray_locate(a, g, &pe, &off) != DMSG_OK || (pe != dmsg_pe() && "
            "!copy))\n"
            "            continue;\n"
            "        unsigned char *mine = (unsigned char *)a->base + off;\n"
            "        if (!compare) {\n            memcpy(mine, img + lin * e, e);\n"
            "        } else if (memcmp(mine, img + lin * e, e) != 0 && bad++ < 5) {\n"
            "            fprintf(stderr, \"PE %%d: %%s element %%zu differs from the serial "
            "evaluation\\n\",\n"
            "                    dmsg_pe(), name, lin);\n        }\n    }\n    return bad;\n}\n");
    fprintf(o, "\n#define CHECK(call)                                                            "
               "     \\\n"
               "    do {                                                                        "
               "   \\\n"
               "        int st_ = (call);                                                       "
               "   \\\n"
               "        if (st_ != DMSG_OK) {                                                   "
               "   \\\n"
               "            fprintf(stderr, \"PE %%d: %%s: %%s\\n\", dmsg_pe(), #call, "
               "dmsg_strerror(st_));       \\\n"
               "            exit(1);                                                            "
               "   \\\n"
               "        }                                                                       "
               "   \\\n"
               "    } while (0)\n");
    fprintf(o,
            "\nint main(int argc, char **argv)\n{\n"
            "    CHECK(dmsg_init());\n"
            "    if (dmsg_npes() != GEN_NPES) {\n"
            "        if (dmsg_pe() == 0)\n"
            "            fprintf(stderr, \"generated for %%d PEs, started on %%d\\n\", GEN_NPES, "
            "dmsg_npes());\n"
            "        dmsg_finalize();\n        return 2;\n    }\n"
            "    long runs = argc > 1 ? strtol(argv[1], NULL, 10) : 2;\n"
            "    dmsg_darray arr[NARRAYS];\n"
            "    unsigned char *img[NARRAYS];\n"
            "    for (int a = 0; a < NARRAYS; a++) {\n"
            "        CHECK(dmsg_darray_init(&arr[a], &array_desc[a]));\n"
            "        CHECK(dmsg_darray_alloc(&arr[a]));\n"
            "        size_t n = elements(&arr[a]), e = arr[a].desc.elem_size;\n"
            "        img[a] = malloc(n * e);\n"
            "        if (img[a] == NULL) {\n            fprintf(stderr, \"out of memory\\n\");\n"
            "            return 1;\n        }\n"
            "        for (size_t i = 0; i < n * e; i++)\n"
            "            img[a][i] = initial(a, i / e, i %% e);\n"
            "        local_part(&arr[a], img[a], 0, array_name[a]);\n    }\n"
            "    char *stage = NULL;\n");
    if (stage > 0)
        fprintf(o, "    CHECK(dmsg_alloc(%zu, (void **)&stage)); /* packed chunks land here */\n",
                stage);
    fprintf(o, "    dmsg_ctr ctr;\n    CHECK(dmsg_ctr_create(&ctr));\n"
               "    double t0 = dmsg_wtime();\n"
               "    for (long r = 0; r < runs; r++) {\n");
    for (int i = 0; i < in->nstmts; i++) {
        const stmt *s = &in->stmts[i];
        fprintf(o, "        CHECK(stmt_%s(arr[ARR_%s].base, arr[ARR_%s].base, stage, ctr));\n",
                s->label, in->arrays[s->dst].name, in->arrays[s->src].name);
    }
    fprintf(o, "    }\n    double t = dmsg_wtime() - t0;\n"
               "    CHECK(dmsg_sync()); /* every deposit of the last statement is complete */\n"
               "    for (long r = 0; r < runs; r++) {\n");
    for (int i = 0; i < in->nstmts; i++) {
        const stmt *s = &in->stmts[i];
        fprintf(o, "        serial_%s(img[ARR_%s], img[ARR_%s]);\n", s->label,
                in->arrays[s->dst].name, in->arrays[s->src].name);
    }
    fprintf(o,
            "    }\n    size_t bad = 0;\n"
            "    for (int a = 0; a < NARRAYS; a++)\n"
            "        bad += local_part(&arr[a], img[a], 1, array_name[a]);\n"
            "    if (dmsg_pe() == 0)\n"
            "        printf(\"%d statements x %%ld runs on %%d PEs: %%.3f ms per run\\n\", runs,\n"
            "               dmsg_npes(), runs > 0 ? t / (double)runs * 1e3 : 0.0);\n"
            "    if (bad)\n        fprintf(stderr, \"PE %%d: %%zu elements FAILED\\n\", "
            "dmsg_pe(), bad);\n"
            "    else if (dmsg_pe() == 0)\n        printf(\"OK\\n\");\n"
            "    CHECK(dmsg_ctr_destroy(ctr));\n"
            "    for (int a = NARRAYS - 1; a >= 0; a--) {\n"
            "        CHECK(dmsg_darray_free(&arr[a]));\n        free(img[a]);\n    }\n",
            in->nstmts);
    if (stage > 0) fprintf(o, "    CHECK(dmsg_free(stage));\n");
    fprintf(o, "    CHECK(dmsg_finalize());\n    return bad ? 1 : 0;\n}\n");
}
