/* Environment table: defaults, parsing, range rules, bad values named. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "dmsg/boot/run_env.h"
#include "dmsg/core/config.h"
#include "dmsg/plan/registry.h"
#include "dmsg/transport/sim/sim.h"
#include "dmsg/transport/transport.h"
#include "tests/unit/detail.h"

/* Every table of this build, through the settings registry. */
static const dmsg_env_table *table(size_t k)
{
    dmsg_env_owner o;
    for (size_t i = 0; dmsg_settings_owner(i, &o) == 0; i++)
        if (o.table && k-- == 0)
            return o.table;
    return NULL;
}

static void clear_env(void)
{
    const dmsg_env_table *t;
    for (size_t k = 0; (t = table(k)); k++)
        for (size_t i = 0; i < t->n; i++)
            unsetenv(t->rows[i].name);
}

TestSuite(env, .init = clear_env);

Test(env, defaults)
{
    dmsg_config c;
    char err[256];
    cr_assert_eq(detail(dmsg_config_load(&c), err, sizeof err), DMSG_OK);
    cr_assert_str_eq(c.transport, "shm");
    cr_assert_eq(c.seg_size, 128ull << 20);
    cr_assert_eq(c.max_counters, 256);
    cr_assert_eq(c.timeout, 0.0);
    dmsg_run_config r;
    cr_assert_eq(detail(dmsg_run_config_load(&r), err, sizeof err), DMSG_OK);
    cr_assert_eq(r.stall_report, 60.0, "a silent hang is reported after a minute by default");
    cr_assert_eq(c.spin, -1);
    cr_assert_eq(c.yield_us, -1, "-1: yield for the transport's own time when oversubscribed");
    cr_assert_eq(c.tile_bytes, 0, "0: the copy engine picks the tile by element size");
    cr_assert_eq(c.debug, 0);
    sim_settings s;
    cr_assert_eq(dmsg_env_load(&dmsg_sim_env_table, &s), DMSG_OK);
    cr_assert_str_eq(s.machine, "t3d");
    cr_assert_str_eq(s.mech, "auto");
    cr_assert_str_eq(s.fetch, "auto");
}

Test(env, a_transport_setting_is_checked_whichever_transport_runs)
{
    dmsg_config c;
    char err[256] = "";
    setenv("DMSG_SIM_REPORT", "perhaps", 1);
    cr_assert_eq(detail(dmsg_config_load(&c), err, sizeof err), DMSG_ERR_ENV);
    cr_assert(strstr(err, "DMSG_SIM_REPORT") != NULL, "message: %s", err);
}

Test(env, coll_scratch)
{
    dmsg_config c;
    char err[256] = "";
    setenv("DMSG_SEGMENT_SIZE", "1M", 1);
    setenv("DMSG_COLL_SCRATCH", "0", 1);
    cr_assert_eq(detail(dmsg_config_load(&c), err, sizeof err), DMSG_OK, "%s", err);
    cr_assert_eq(dmsg_coll_scratch_bytes(&c), 64 * 1024, "automatic: a sixteenth of the segment");
    setenv("DMSG_COLL_SCRATCH", "600K", 1);
    cr_assert_eq(detail(dmsg_config_load(&c), err, sizeof err), DMSG_ERR_ENV);
    cr_assert(strstr(err, "DMSG_COLL_SCRATCH") != NULL, "message: %s", err);
    setenv("DMSG_MAX_COUNTERS", "65536", 1);
    setenv("DMSG_COLL_SCRATCH", "0", 1);
    cr_assert_eq(detail(dmsg_config_load(&c), err, sizeof err), DMSG_ERR_ENV,
                 "the teams' lanes need room");
    cr_assert(strstr(err, "DMSG_MAX_COUNTERS") != NULL, "message: %s", err);
}

Test(env, coll_paths)
{
    dmsg_config c;
    char err[256] = "";
    cr_assert_eq(detail(dmsg_config_load(&c), err, sizeof err), DMSG_OK, "%s", err);
    cr_assert(c.coll_xchg == 512 && c.coll_flat == 2048, "defaults %llu, %llu",
              (unsigned long long)c.coll_xchg, (unsigned long long)c.coll_flat);
    setenv("DMSG_COLL_XCHG", "4K", 1);
    setenv("DMSG_COLL_FLAT", "0", 1);
    cr_assert_eq(detail(dmsg_config_load(&c), err, sizeof err), DMSG_OK, "%s", err);
    cr_assert(c.coll_xchg == 4096 && c.coll_flat == 0);
    setenv("DMSG_COLL_XCHG", "8K", 1);
    cr_assert_eq(detail(dmsg_config_load(&c), err, sizeof err), DMSG_ERR_ENV);
    cr_assert(strstr(err, "DMSG_COLL_XCHG") != NULL && strstr(err, "4096") != NULL,
              "message: %s", err);
    cr_assert(c.coll_xchg == 4096, "a refused value changes nothing");
    setenv("DMSG_COLL_XCHG", "-1", 1);
    cr_assert_eq(detail(dmsg_config_load(&c), err, sizeof err), DMSG_ERR_ENV);
    setenv("DMSG_COLL_XCHG", "512", 1);
    setenv("DMSG_COLL_FLAT", "lots", 1);
    cr_assert_eq(detail(dmsg_config_load(&c), err, sizeof err), DMSG_ERR_ENV);
    cr_assert(strstr(err, "DMSG_COLL_FLAT") != NULL, "message: %s", err);
}

Test(env, barrier_kind)
{
    dmsg_config c;
    char err[256] = "";
    cr_assert_eq(detail(dmsg_config_load(&c), err, sizeof err), DMSG_OK, "%s", err);
    cr_assert_eq(c.barrier_kind, DMSG_TP_BARRIER_CENTRAL);
    setenv("DMSG_BARRIER", "dissemination", 1);
    cr_assert_eq(detail(dmsg_config_load(&c), err, sizeof err), DMSG_OK, "%s", err);
    cr_assert_eq(c.barrier_kind, DMSG_TP_BARRIER_DISSEMINATION);
    setenv("DMSG_BARRIER", "tree", 1);
    cr_assert_eq(detail(dmsg_config_load(&c), err, sizeof err), DMSG_ERR_ENV);
    cr_assert(strstr(err, "DMSG_BARRIER") != NULL, "message: %s", err);
    cr_assert_eq(c.barrier_kind, DMSG_TP_BARRIER_DISSEMINATION, "a refused value changes nothing");
}

Test(env, choices)
{
    static const dmsg_env_choice c[] = {{"auto", 0}, {"packed", 1}, {"chained", 2}};
    int v = -1;
    cr_assert_eq(dmsg_env_choose("DMSG_X", "chained", c, 3, &v), DMSG_OK);
    cr_assert_eq(v, 2);
    cr_assert_eq(dmsg_env_choose("DMSG_X", "fast", c, 3, &v), DMSG_ERR_ENV);
    cr_assert_eq(v, 2, "output untouched on error");
    /* The detail names the setting and the choices, for whoever prints it. */
    cr_assert_str_eq(dmsg_last_error(), "DMSG_X=fast is not one of: auto packed chained");
}

/* The library prints nothing on a bad setting: the detail is the caller's
 * to print (dmsgrun, the application). stderr is a socket here, and nothing
 * may arrive through it. */
Test(env, choice_error_prints_nothing)
{
    static const dmsg_env_choice c[] = {{"auto", 0}, {"packed", 1}, {"chained", 2}};
    int sv[2], v = -1;
    cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
    fflush(stderr);
    int saved = dup(2);
    cr_assert(saved >= 0);
    dup2(sv[0], 2);
    dmsg_status st = dmsg_env_choose("DMSG_X", "fast", c, 3, &v);
    dup2(saved, 2);
    close(saved);
    close(sv[0]);
    char got[512] = "";
    ssize_t n = recv(sv[1], got, sizeof got - 1, MSG_DONTWAIT);
    close(sv[1]);
    cr_assert_eq(st, DMSG_ERR_ENV);
    cr_assert(n <= 0, "printed: %.*s", (int)(n > 0 ? n : 0), got);
}

Test(env, sizes_with_suffixes)
{
    uint64_t v;
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_SIZE, "4096", &v, sizeof v), DMSG_OK);
    cr_assert_eq(v, 4096);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_SIZE, "64K", &v, sizeof v), DMSG_OK);
    cr_assert_eq(v, 65536);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_SIZE, "3m", &v, sizeof v), DMSG_OK);
    cr_assert_eq(v, 3u << 20);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_SIZE, "2GiB", &v, sizeof v), DMSG_OK);
    cr_assert_eq(v, 2ull << 30);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_SIZE, "1MB", &v, sizeof v), DMSG_OK);
    cr_assert_eq(v, 1u << 20);
}

Test(env, bad_values_rejected)
{
    uint64_t v;
    uint32_t u;
    double d;
    long l;
    int b;
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_SIZE, "", &v, sizeof v), DMSG_ERR_ENV);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_SIZE, "-5", &v, sizeof v), DMSG_ERR_ENV);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_SIZE, "12Q", &v, sizeof v), DMSG_ERR_ENV);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_SIZE, "99999999999999999999", &v, sizeof v), DMSG_ERR_ENV);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_SIZE, "17179869184G", &v, sizeof v), DMSG_ERR_ENV);
    /* "iB" belongs to a multiplier: alone it is a typo, not a byte count. */
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_SIZE, "1iB", &v, sizeof v), DMSG_ERR_ENV);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_SIZE, "4096iB", &v, sizeof v), DMSG_ERR_ENV);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_SIZE, "4KiBB", &v, sizeof v), DMSG_ERR_ENV);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_UINT, "4294967296", &u, sizeof u), DMSG_ERR_ENV);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_UINT, "x", &u, sizeof u), DMSG_ERR_ENV);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_SECONDS, "-1", &d, sizeof d), DMSG_ERR_ENV);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_SECONDS, "nan", &d, sizeof d), DMSG_ERR_ENV);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_SECONDS, "0.25", &d, sizeof d), DMSG_OK);
    cr_assert_eq(d, 0.25);
    /* A bound must exist: 0 is refused, not read as "none" or as the default. */
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_BOUND, "0", &d, sizeof d), DMSG_ERR_ENV);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_BOUND, "-2", &d, sizeof d), DMSG_ERR_ENV);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_BOUND, "0.5", &d, sizeof d), DMSG_OK);
    cr_assert_eq(d, 0.5);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_LONG, "-2", &l, sizeof l), DMSG_ERR_ENV);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_BOOL, "maybe", &b, sizeof b), DMSG_ERR_ENV);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_BOOL, "yes", &b, sizeof b), DMSG_OK);
    cr_assert_eq(b, 1);
}

/* Settings are decimal: no base prefixes (0x10 is not 16 s, 010 is ten, not
 * eight), no signs or spaces strtod or strtol would skip, no exponents. */
Test(env, numbers_are_decimal_only)
{
    uint64_t v;
    uint32_t u;
    double d;
    long l;
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_SECONDS, "0x10", &d, sizeof d), DMSG_ERR_ENV);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_BOUND, "0x10", &d, sizeof d), DMSG_ERR_ENV);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_SECONDS, "0x1p4", &d, sizeof d), DMSG_ERR_ENV);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_SECONDS, "1e3", &d, sizeof d), DMSG_ERR_ENV);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_SECONDS, "infinity", &d, sizeof d), DMSG_ERR_ENV);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_SECONDS, " 5", &d, sizeof d), DMSG_ERR_ENV);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_SECONDS, "+5", &d, sizeof d), DMSG_ERR_ENV);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_SECONDS, ".5", &d, sizeof d), DMSG_ERR_ENV);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_SECONDS, "5.", &d, sizeof d), DMSG_ERR_ENV);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_SECONDS, "010", &d, sizeof d), DMSG_OK);
    cr_assert_eq(d, 10.0);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_SECONDS, "2.5", &d, sizeof d), DMSG_OK);
    cr_assert_eq(d, 2.5);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_UINT, "0x10", &u, sizeof u), DMSG_ERR_ENV);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_UINT, "010", &u, sizeof u), DMSG_OK);
    cr_assert_eq(u, 10);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_SIZE, "0x10", &v, sizeof v), DMSG_ERR_ENV);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_SIZE, "010K", &v, sizeof v), DMSG_OK);
    cr_assert_eq(v, 10240);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_LONG, "0x10", &l, sizeof l), DMSG_ERR_ENV);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_LONG, " 5", &l, sizeof l), DMSG_ERR_ENV);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_LONG, "+5", &l, sizeof l), DMSG_ERR_ENV);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_LONG, "-01", &l, sizeof l), DMSG_OK);
    cr_assert_eq(l, -1);
    cr_assert_eq(dmsg_env_parse(DMSG_ENV_LONG, "010", &l, sizeof l), DMSG_OK);
    cr_assert_eq(l, 10);
}

/* The message names the variable and says a decimal number is expected. */
Test(env, hex_timeout_refused_clearly)
{
    dmsg_config c;
    char err[256] = "";
    c.timeout = 7;
    setenv("DMSG_TIMEOUT", "0x10", 1);
    cr_assert_eq(detail(dmsg_config_load(&c), err, sizeof err), DMSG_ERR_ENV);
    cr_assert(strstr(err, "DMSG_TIMEOUT=\"0x10\"") != NULL, "message: %s", err);
    cr_assert(strstr(err, "decimal") != NULL, "message: %s", err);
    cr_assert_eq(c.timeout, 7, "output untouched on error");
}

Test(env, load_names_the_bad_variable)
{
    dmsg_config c;
    char err[256] = "";
    c.max_counters = 12345;
    setenv("DMSG_SEGMENT_SIZE", "lots", 1);
    cr_assert_eq(detail(dmsg_config_load(&c), err, sizeof err), DMSG_ERR_ENV);
    cr_assert(strstr(err, "DMSG_SEGMENT_SIZE") != NULL, "message: %s", err);
    cr_assert_eq(c.max_counters, 12345, "output untouched on error");
}

Test(env, range_rules)
{
    dmsg_config c;
    char err[256];
    setenv("DMSG_SEGMENT_SIZE", "1K", 1);
    cr_assert_eq(detail(dmsg_config_load(&c), err, sizeof err), DMSG_ERR_ENV);
    setenv("DMSG_SEGMENT_SIZE", "5000", 1);
    cr_assert_eq(detail(dmsg_config_load(&c), err, sizeof err), DMSG_OK);
    cr_assert_eq(c.seg_size, 8192, "segment rounded up to whole pages");
    setenv("DMSG_MAX_COUNTERS", "0", 1);
    cr_assert_eq(detail(dmsg_config_load(&c), err, sizeof err), DMSG_ERR_ENV);
    setenv("DMSG_MAX_COUNTERS", "8", 1);
    setenv("DMSG_TILE_BYTES", "16", 1);
    cr_assert_eq(detail(dmsg_config_load(&c), err, sizeof err), DMSG_ERR_ENV);
    setenv("DMSG_TILE_BYTES", "255", 1);
    cr_assert_eq(detail(dmsg_config_load(&c), err, sizeof err), DMSG_ERR_ENV);
    setenv("DMSG_TILE_BYTES", "0", 1);
    cr_assert_eq(detail(dmsg_config_load(&c), err, sizeof err), DMSG_OK, "0 is automatic: %s", err);
    cr_assert_eq(c.tile_bytes, 0);
    setenv("DMSG_TILE_BYTES", "8K", 1);
    setenv("DMSG_YIELD_US", "-2", 1);
    cr_assert_eq(detail(dmsg_config_load(&c), err, sizeof err), DMSG_ERR_ENV);
    setenv("DMSG_YIELD_US", "10000001", 1);
    cr_assert_eq(detail(dmsg_config_load(&c), err, sizeof err), DMSG_ERR_ENV);
    cr_assert(strstr(err, "DMSG_YIELD_US") != NULL, "message: %s", err);
    setenv("DMSG_YIELD_US", "0", 1);
    cr_assert_eq(detail(dmsg_config_load(&c), err, sizeof err), DMSG_OK, "0 sleeps at once: %s",
                 err);
    cr_assert_eq(c.yield_us, 0);
    setenv("DMSG_TRANSPORT", "a-name-that-is-far-too-long", 1);
    cr_assert_eq(detail(dmsg_config_load(&c), err, sizeof err), DMSG_ERR_ENV);
    setenv("DMSG_TRANSPORT", "shm", 1);
    cr_assert_eq(detail(dmsg_config_load(&c), err, sizeof err), DMSG_OK);
    cr_assert_eq(c.max_counters, 8);
    cr_assert_eq(c.tile_bytes, 8192);
}

Test(env, table_is_complete)
{
    /* Every entry has a name, a help text and a default that parses. */
    const dmsg_env_table *t;
    for (size_t k = 0; (t = table(k)); k++)
    for (size_t i = 0; i < t->n; i++) {
        const dmsg_env_entry *e = &t->rows[i];
        cr_assert(e->name && !strncmp(e->name, "DMSG_", 5));
        cr_assert(e->help && *e->help);
        _Alignas(8) char buf[1024];
        cr_assert(e->size <= sizeof buf);
        cr_assert_eq(dmsg_env_parse(e->type, e->def, buf, e->size), DMSG_OK, "%s default %s",
                     e->name, e->def);
    }
}

/* The registry is complete: every DMSG_ variable that a getenv (or the
 * boot layer's dmsg_boot_env) call names under dmsg/ and tools/ has an
 * owner, so a setting read around the registry fails here. Run from the
 * source tree (as make test does). */
Test(env, registry_has_every_getenv)
{
    FILE *p = popen("grep -rhoE '(getenv|dmsg_boot_env)\\(\"DMSG_[A-Z0-9_]+\"' "
                    "dmsg tools --include='*.c' --include='*.h' | sed 's/.*(\"//; s/\"$//' | "
                    "sort -u",
                    "r");
    cr_assert(p != NULL);
    char name[128];
    int seen = 0;
    while (fgets(name, sizeof name, p)) {
        name[strcspn(name, "\n")] = '\0';
        dmsg_env_owner o;
        cr_expect_eq(dmsg_settings_find(name, &o), 0,
                     "%s is read by getenv but has no owner in the settings registry "
                     "(dmsg/plan/registry.c)", name);
        seen++;
    }
    pclose(p);
    /* DMSG_MACHINE_DIR, DMSG_MACHINE, DMSG_TILE_BYTES, DMSG_BENCH_*: a grep
     * that finds fewer ran outside the source tree and proved nothing. */
    cr_assert_geq(seen, 4, "found only %d DMSG_ names in getenv calls: not run from the source "
                           "tree?", seen);
}

/* Each variable has one owner, and --help-env names it. */
Test(env, registry_names_owners_once)
{
    const dmsg_env_table *t, *u;
    for (size_t k = 0; (t = table(k)); k++)
        for (size_t i = 0; i < t->n; i++)
            for (size_t l = k; (u = table(l)); l++)
                for (size_t j = (l == k ? i + 1 : 0); j < u->n; j++)
                    cr_expect(strcmp(t->rows[i].name, u->rows[j].name) != 0,
                              "%s has two owners", t->rows[i].name);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    cr_assert(f != NULL);
    dmsg_settings_print(f);
    fclose(f);
    cr_expect(strstr(out, "\nmodel (") && strstr(out, "DMSG_MACHINE_DIR"), "%s", out);
    cr_expect(strstr(out, "\ndmsgrun (") && strstr(out, "DMSG_STALL_REPORT"), "%s", out);
    cr_expect(strstr(out, "\nplan (") && strstr(out, "\npostal (") && strstr(out, "\ncore ("),
              "%s", out);
    free(out);
}
