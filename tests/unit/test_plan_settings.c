/* The plan layer's settings rows (dmsg/plan/settings.c): defaults, every
 * choice, the cache directory, and bad values refused with a message
 * naming the variable and nothing filled in. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "dmsg/plan/settings.h"
#include "dmsg_plan.h"
#include "tests/unit/detail.h"

static void clear(void)
{
    static const char *const vars[] = {"DMSG_PLAN_MECH", "DMSG_PLAN_MACHINE", "DMSG_PLAN_CALIBRATE",
                                       "DMSG_PLAN_CACHE"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
}

Test(plan_settings, defaults)
{
    clear();
    setenv("XDG_CACHE_HOME", "/var/tmp/xdg", 1);
    plan_settings s;
    char err[256];
    cr_assert_eq(detail(dmsg_plan_settings_load(&s), err, sizeof err), DMSG_OK, "%s", err);
    cr_expect_eq(s.mech, DMSG_PLAN_MODEL);
    cr_expect_str_empty(s.machine);
    cr_expect_eq(s.calibrate, PLAN_CAL_AUTO);
    cr_expect_str_eq(s.cache, "/var/tmp/xdg/dmsg");
    /* Without XDG_CACHE_HOME (or with a relative one): ~/.cache/dmsg. */
    setenv("XDG_CACHE_HOME", "relative", 1);
    setenv("HOME", "/home/someone", 1);
    cr_assert_eq(detail(dmsg_plan_settings_load(&s), err, sizeof err), DMSG_OK, "%s", err);
    cr_expect_str_eq(s.cache, "/home/someone/.cache/dmsg");
}

Test(plan_settings, choices)
{
    clear();
    static const struct {
        const char *v;
        int mech;
    } m[] = {{"model", DMSG_PLAN_MODEL},
             {"direct", DMSG_PLAN_DIRECT},
             {"pack", DMSG_PLAN_PACK},
             {"measure", DMSG_PLAN_MEASURE}};
    plan_settings s;
    char err[256];
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
        setenv("DMSG_PLAN_MECH", m[i].v, 1);
        cr_assert_eq(detail(dmsg_plan_settings_load(&s), err, sizeof err), DMSG_OK, "%s", err);
        cr_expect_eq(s.mech, m[i].mech, "%s", m[i].v);
    }
    setenv("DMSG_PLAN_CALIBRATE", "refresh", 1);
    setenv("DMSG_PLAN_MACHINE", "paragon", 1);
    setenv("DMSG_PLAN_CACHE", "/srv/cache", 1);
    cr_assert_eq(detail(dmsg_plan_settings_load(&s), err, sizeof err), DMSG_OK, "%s", err);
    cr_expect_eq(s.calibrate, PLAN_CAL_REFRESH);
    cr_expect_str_eq(s.machine, "paragon");
    cr_expect_str_eq(s.cache, "/srv/cache");
    setenv("DMSG_PLAN_CALIBRATE", "off", 1);
    cr_assert_eq(detail(dmsg_plan_settings_load(&s), err, sizeof err), DMSG_OK, "%s", err);
    cr_expect_eq(s.calibrate, PLAN_CAL_OFF);
    clear();
}

Test(plan_settings, bad_values)
{
    static const char *const bad[][3] = {
        {"DMSG_PLAN_MECH", "fastest",
         "DMSG_PLAN_MECH=fastest is not one of: model direct pack measure"},
        {"DMSG_PLAN_CALIBRATE", "sometimes",
         "DMSG_PLAN_CALIBRATE=sometimes is not one of: auto off refresh"},
        {"DMSG_PLAN_MACHINE", "cray-9", "DMSG_PLAN_MACHINE=cray-9: "},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        clear();
        setenv(bad[i][0], bad[i][1], 1);
        plan_settings s;
        memset(&s, 0x5a, sizeof s);
        char err[256] = "";
        cr_expect_eq(detail(dmsg_plan_settings_load(&s), err, sizeof err), DMSG_ERR_ENV, "%s",
                     bad[i][0]);
        cr_expect(strstr(err, bad[i][2]) != NULL, "message '%s'", err);
        cr_expect_eq(((unsigned char *)&s)[0], 0x5a, "filled in on an error");
        cr_expect_eq(detail(dmsg_plan_config_check(), err, sizeof err), DMSG_ERR_ENV);
    }
    clear();
}
