/* The settings registry: every owner of settings in this build (the core,
 * each transport, the model, postal, plan, dmsgrun, the tools' own
 * variables) in one list, in the order --help-env prints them. It lives in
 * the top layer of the library because it names owners of every layer; a
 * new owner is one line in registry.c, a new transport is listed through
 * the transport registry. dmsgrun checks and prints settings only through
 * it, and a unit test checks that every DMSG_ variable a getenv call reads
 * is in it (tests/unit/test_env.c). */
#ifndef DMSG_PLAN_REGISTRY_H
#define DMSG_PLAN_REGISTRY_H

#include <stddef.h>
#include <stdio.h>
#include "dmsg/base/env.h"

/* Number of owners. */
size_t dmsg_settings_count(void);

/* Owner i (0 <= i < dmsg_settings_count()), into *o; 0, or -1 for an i out
 * of range. A transport without settings has o->table NULL. */
int dmsg_settings_owner(size_t i, dmsg_env_owner *o);

/* Loads and checks every owner's rows, as each owner will when it reads
 * them: DMSG_ERR_ENV with a detail naming the variable (dmsg_last_error)
 * for the first bad value (a launcher refuses the job before it starts). */
dmsg_status dmsg_settings_check(void);

/* Prints every owner's rows under a heading naming the owner and its
 * reader, all in the same columns (`--help-env`). */
void dmsg_settings_print(FILE *f);

/* The owner of the variable name, into *o: 0, or -1 if no owner has it. */
int dmsg_settings_find(const char *name, dmsg_env_owner *o);

#endif
