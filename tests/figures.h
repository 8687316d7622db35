/* Published figures in tests: one assertion that dmsg's value lies within a
 * relative tolerance of the published one, and, with DMSG_FIGURES=1 in the
 * environment, one table row on stdout (lines starting "FIG |"), from which
 * docs/simulator.md's comparison table is made: grep '^FIG' of the unit and
 * sim test output. The values are the model's and the simulator's virtual
 * times, never this host's speed, so the load of the host cannot move them. */
#ifndef DMSG_TESTS_FIGURES_H
#define DMSG_TESTS_FIGURES_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* what: the figure; kind: "estimate" (the published model's value: dmsg must
 * match it) or "measured" (a measurement: only compared, tol < 0 skips the
 * assertion); test: the test that checks it. */
static inline void figure(const char *what, const char *unit, double published, double got,
                          double tol, const char *kind, const char *test)
{
    double diff = (got - published) / published;
    const char *show = getenv("DMSG_FIGURES");
    if (show && show[0] && strcmp(show, "0") != 0)
        printf("FIG | %s | %.4g %s | %.4g %s | %+.1f%% | %s | %s\n", what, published, unit, got,
               unit, 100 * diff, kind, test);
    fflush(stdout);
    if (tol >= 0)
        cr_assert(fabs(diff) <= tol, "%s: dmsg %.6g %s, published %.6g %s (%+.1f%%, allowed %.0f%%)",
                  what, got, unit, published, unit, 100 * diff, 100 * tol);
}

#endif
