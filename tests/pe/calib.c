/* The plan layer's host model on shm and ofi (dmsg/plan/calibrate.c): no
 * model with calibration off and nothing cached; a short calibration the
 * first time, reported alike on every PE and written to the cache; reuse
 * within the job; the cached file read by a later job; a broken cache and
 * bad DMSG_PLAN_* settings refused on every PE. Needs DMSG_PLAN_CACHE set
 * to a fresh directory (tests/integ/plan.c makes one per test). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dmsg/plan/calibrate.h" /* dmsg_plan_cal_forget: the next plan is a new job's first */
#include "dmsg_plan.h"
#include "dmsg_postal.h"
#include "dmsg_rr.h"
#include "pe.h"

/* Creates the plan with opts, checks the result of one execution, returns
 * its info and destroys it. */
static int plan_info(const dmsg_assign *as, const dmsg_plan_opts *opts, dmsg_plan_info *info)
{
    dmsg_plan *plan;
    PE_OK(dmsg_plan_create(as, opts, &plan));
    PE_TRY(pe_plan_verify(plan, as));
    PE_OK(dmsg_plan_get_info(plan, info));
    PE_OK(dmsg_plan_destroy(plan));
    return 0;
}

/* Every PE's value of v is the same. */
static int same_everywhere(double v, const char *what)
{
    double *all;
    PE_OK(dmsg_alloc((size_t)pe_n() * sizeof *all, (void **)&all));
    for (int q = 0; q < pe_n(); q++)
        PE_OK(dmsg_deposit(&all[pe_me()], &v, sizeof v, q, DMSG_CTR_NONE));
    PE_OK(dmsg_sync());
    for (int p = 0; p < pe_n(); p++)
        PE_CHECK(all[p] == v, "%s: PE %d has %g, PE %d %g", what, p, all[p], pe_me(), v);
    PE_OK(dmsg_free(all));
    return 0;
}

/* The host description the calibration wrote into dir (PE 0 looks). */
static int find_host_file(const char *dir, char *path, size_t len)
{
    DIR *d = opendir(dir);
    PE_CHECK(d != NULL, "no cache directory %s after a calibration", dir);
    struct dirent *e;
    path[0] = '\0';
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, "host-", 5) == 0 && strstr(e->d_name, ".machine") != NULL &&
            strstr(e->d_name, ".tmp") == NULL)
            snprintf(path, len, "%s/%s", dir, e->d_name);
    closedir(d);
    PE_CHECK(path[0] != '\0', "no host-*.machine in %s", dir);
    return 0;
}

static int expect_env_error(const dmsg_assign *as, const char *var, const char *val)
{
    dmsg_plan *plan = NULL;
    setenv(var, val, 1);
    PE_EXPECT(dmsg_plan_create(as, NULL, &plan), DMSG_ERR_ENV);
    PE_CHECK(plan == NULL, "%s=%s: a failed create wrote its output", var, val);
    unsetenv(var);
    return 0;
}

static int plan_calibrate(void)
{
    PE_CHECK(strcmp(dmsg_transport_name(), "sim") != 0, "the sim transport has its machine");
    const char *base = getenv("DMSG_PLAN_CACHE");
    PE_CHECK(base != NULL && base[0] == '/', "DMSG_PLAN_CACHE must name a fresh directory");
    char root[512], off[600], dir[600], file[900];
    snprintf(root, sizeof root, "%s", base);
    snprintf(off, sizeof off, "%s/off", root);
    snprintf(dir, sizeof dir, "%s/auto", root);
    dmsg_darray A, B;
    dmsg_assign as;
    PE_TRY(pe_plan_transpose(&A, &B, &as, 24 * (size_t)pe_n(), 8));
    dmsg_plan_info info;

    /* Calibration off, nothing cached: no model, every partner direct. */
    dmsg_plan_cal_forget();
    setenv("DMSG_PLAN_CACHE", off, 1);
    setenv("DMSG_PLAN_CALIBRATE", "off", 1);
    PE_TRY(plan_info(&as, NULL, &info));
    PE_CHECK(info.model_source == DMSG_PLAN_SRC_NONE && info.machine[0] == '\0' &&
                 info.partners_packed == 0 && info.model_direct_mbs == 0,
             "calibration off: source %d, machine '%s', %d packed", info.model_source, info.machine,
             info.partners_packed);

    /* The first plan calibrates: a few milliseconds, the same report on
     * every PE, a prediction for each partner, and a file in the cache. */
    setenv("DMSG_PLAN_CACHE", dir, 1);
    setenv("DMSG_PLAN_CALIBRATE", "auto", 1);
    PE_TRY(plan_info(&as, NULL, &info));
    PE_CHECK(info.model_source == DMSG_PLAN_SRC_CALIBRATED && strcmp(info.machine, "host") == 0,
             "first plan: source %d, machine '%s'", info.model_source, info.machine);
    PE_CHECK(info.calibration_s > 0 && info.calibration_s < 0.5,
             "calibration took %g s, not a few ms", info.calibration_s);
    PE_CHECK(pe_n() == 1 || (info.model_direct_mbs > 0 && info.model_pack_mbs > 0),
             "no prediction: direct %g, packed %g MB/s", info.model_direct_mbs,
             info.model_pack_mbs);
    PE_TRY(same_everywhere(info.calibration_s, "calibration seconds"));
    PE_TRY(same_everywhere(info.model_source, "model source"));

    /* The same patterns again: nothing to measure. */
    PE_TRY(plan_info(&as, NULL, &info));
    PE_CHECK(info.model_source == DMSG_PLAN_SRC_CALIBRATED && info.calibration_s == 0,
             "second plan: source %d, measured %g s", info.model_source, info.calibration_s);

    /* A later job reads the cache. */
    dmsg_plan_cal_forget();
    PE_TRY(plan_info(&as, NULL, &info));
    PE_CHECK(info.model_source == DMSG_PLAN_SRC_CACHED && info.calibration_s == 0 &&
                 strcmp(info.machine, "host") == 0,
             "after the calibration: source %d, measured %g s", info.model_source,
             info.calibration_s);
    /* refresh measures again, and the file is a valid description by name. */
    dmsg_plan_cal_forget();
    setenv("DMSG_PLAN_CALIBRATE", "refresh", 1);
    PE_TRY(plan_info(&as, NULL, &info));
    PE_CHECK(info.model_source == DMSG_PLAN_SRC_CALIBRATED && info.calibration_s > 0,
             "refresh: source %d, measured %g s", info.model_source, info.calibration_s);
    unsetenv("DMSG_PLAN_CALIBRATE");
    /* The file is a description the options can name (every PE of this
     * test shares the file system). */
    PE_TRY(find_host_file(dir, file, sizeof file));
    dmsg_plan_opts named = {.mech = DMSG_PLAN_MODEL, .machine = file};
    PE_TRY(plan_info(&as, &named, &info));
    PE_CHECK(info.model_source == DMSG_PLAN_SRC_NAMED && strcmp(info.machine, "host") == 0,
             "the cached file by name: source %d, machine '%s'", info.model_source, info.machine);

    /* A broken cache file: every PE gets the error, nothing is created. */
    dmsg_plan_cal_forget();
    PE_OK(dmsg_sync());
    if (pe_me() == 0) {
        FILE *f = fopen(file, "w");
        PE_CHECK(f != NULL, "cannot rewrite %s", file);
        fputs("name = host\nthis is not a key\n", f);
        fclose(f);
    }
    PE_OK(dmsg_sync());
    dmsg_plan *plan = NULL;
    PE_EXPECT(dmsg_plan_create(&as, NULL, &plan), DMSG_ERR_ENV);
    PE_CHECK(plan == NULL, "a failed create wrote its output");
    PE_OK(dmsg_sync());
    if (pe_me() == 0) PE_CHECK(remove(file) == 0, "cannot remove %s", file);
    PE_OK(dmsg_sync());

    /* Settings: bad values refused on every PE; good ones obeyed. */
    PE_TRY(expect_env_error(&as, "DMSG_PLAN_MECH", "fastest"));
    PE_TRY(expect_env_error(&as, "DMSG_PLAN_CALIBRATE", "maybe"));
    PE_TRY(expect_env_error(&as, "DMSG_PLAN_MACHINE", "no-such-machine"));
    setenv("DMSG_PLAN_MECH", "pack", 1);
    setenv("DMSG_PLAN_MACHINE", "paragon", 1);
    PE_TRY(plan_info(&as, NULL, &info));
    PE_CHECK(info.mech == DMSG_PLAN_PACK && info.model_source == DMSG_PLAN_SRC_NAMED &&
                 strcmp(info.machine, "paragon") == 0,
             "settings pack/paragon: mech %d, source %d, machine '%s'", info.mech,
             info.model_source, info.machine);
    /* Options beat settings. */
    dmsg_plan_opts o = {.mech = DMSG_PLAN_DIRECT, .machine = "t3d"};
    PE_TRY(plan_info(&as, &o, &info));
    PE_CHECK(info.mech == DMSG_PLAN_DIRECT && strcmp(info.machine, "t3d") == 0 &&
                 info.partners_packed == 0,
             "options: mech %d, machine '%s'", info.mech, info.machine);
    unsetenv("DMSG_PLAN_MECH");
    unsetenv("DMSG_PLAN_MACHINE");
    setenv("DMSG_PLAN_CACHE", root, 1);
    PE_OK(dmsg_darray_free(&B));
    PE_OK(dmsg_darray_free(&A));
    return 0;
}

/* One job's plan with a model, with the layout a transpose of 24 columns
 * per PE gives; returns the model's source. */
static int job_plan_source(int *source)
{
    dmsg_darray A, B;
    dmsg_assign as;
    PE_TRY(pe_plan_transpose(&A, &B, &as, 24 * (size_t)pe_n(), 8));
    dmsg_plan_info info;
    PE_TRY(plan_info(&as, NULL, &info));
    *source = info.model_source;
    PE_OK(dmsg_darray_free(&B));
    PE_OK(dmsg_darray_free(&A));
    return 0;
}

/* The host model a job agreed on ends with dmsg_finalize: a later
 * dmsg_init in the same process (started without a launcher: one joined
 * job per process is all a launcher allows) with calibration off and an
 * empty cache has no model, as any new job. Before that state ended at finalize, the second job reused the
 * first one's description. */
static int plan_model_ends_at_finalize(void)
{
    const char *base = getenv("DMSG_PLAN_CACHE");
    PE_CHECK(base != NULL && base[0] == '/', "DMSG_PLAN_CACHE must name a fresh directory");
    char dir[600], none[600];
    snprintf(dir, sizeof dir, "%s/first", base);
    snprintf(none, sizeof none, "%s/none", base);
    PE_OK(dmsg_init());
    PE_CHECK(strcmp(dmsg_transport_name(), "sim") != 0, "the sim transport has its machine");
    setenv("DMSG_PLAN_CACHE", dir, 1);
    unsetenv("DMSG_PLAN_CALIBRATE");
    int source = -1;
    PE_TRY(job_plan_source(&source));
    PE_CHECK(source == DMSG_PLAN_SRC_CALIBRATED || source == DMSG_PLAN_SRC_CACHED,
             "first job: model source %d, expected a calibrated or cached one", source);
    PE_OK(dmsg_finalize());

    setenv("DMSG_PLAN_CACHE", none, 1);
    setenv("DMSG_PLAN_CALIBRATE", "off", 1);
    PE_OK(dmsg_init());
    PE_TRY(job_plan_source(&source));
    PE_CHECK(source == DMSG_PLAN_SRC_NONE,
             "second job: model source %d, expected none (the first job's model outlived it)",
             source);
    PE_OK(dmsg_finalize());
    unsetenv("DMSG_PLAN_CALIBRATE");
    setenv("DMSG_PLAN_CACHE", base, 1);
    return 0;
}

/* One job's plans, postal and RRMSG state that the program did not end
 * (a plan not destroyed, dmsg_postal_finalize and dmsg_rr_finalize not
 * called, a message never received) ends with dmsg_finalize: a later job in
 * the same process (started without a launcher) starts from nothing. Before,
 * the second job's plans used the first job's shared counter and its
 * dmsg_postal_init and dmsg_rr_init failed with "twice". */
static int job_state_ends_at_finalize(void)
{
    for (int job = 0; job < 2; job++) {
        PE_OK(dmsg_init());
        dmsg_darray A, B;
        dmsg_assign as;
        dmsg_plan *plan;
        PE_TRY(pe_plan_transpose(&A, &B, &as, 8 * (size_t)pe_n(), 8));
        PE_OK(dmsg_plan_create(&as, NULL, &plan));
        PE_TRY(pe_plan_verify(plan, &as));
        PE_OK(dmsg_postal_init());
        PE_OK(dmsg_rr_init());
        int32_t v = 17 + job, got = 0;
        PE_OK(dmsg_postal_send_bytes(pe_me(), 5, &v, sizeof v));
        if (job == 1) {
            /* The second job ends everything itself. */
            PE_OK(dmsg_postal_recv_bytes(pe_me(), 5, &got, sizeof got, NULL));
            PE_CHECK(got == v, "second job: received %d, sent %d", (int)got, (int)v);
            PE_OK(dmsg_rr_finalize());
            PE_OK(dmsg_postal_finalize());
            PE_OK(dmsg_plan_destroy(plan));
            PE_OK(dmsg_darray_free(&B));
            PE_OK(dmsg_darray_free(&A));
        }
        PE_OK(dmsg_finalize());
    }
    return 0;
}

const pe_case pe_calib_cases[] = {
    {"plan_calibrate", plan_calibrate, 0},
    {"plan_model_ends_at_finalize", plan_model_ends_at_finalize, PE_MANUAL_INIT},
    {"job_state_ends_at_finalize", job_state_ends_at_finalize, PE_MANUAL_INIT},
    {NULL, NULL, 0},
};
