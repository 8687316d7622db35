/* The settings machinery: environment variables described by rows (name,
 * type, default, help, the field they fill). Each layer that owns settings
 * declares its rows and the struct they fill (the core: dmsg/core/config.h;
 * a transport: in its folder, through its ops table), so a setting is
 * declared exactly once; dmsg_init, dmsgrun and `dmsgrun --help-env` read
 * every table through these functions. */
#ifndef DMSG_BASE_ENV_H
#define DMSG_BASE_ENV_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "dmsg/base/status.h"

typedef enum {
    DMSG_ENV_STRING,  /* char[]: non-empty, shorter than the field */
    DMSG_ENV_SIZE,    /* uint64_t: bytes, suffix K, M, G, T (optionally B; iB after K..T) */
    DMSG_ENV_UINT,    /* uint32_t */
    DMSG_ENV_SECONDS, /* double >= 0 (also any non-negative factor) */
    DMSG_ENV_BOUND,   /* double > 0: a limit that must exist (0 is not "none") */
    DMSG_ENV_LONG,    /* long >= -1 */
    DMSG_ENV_BOOL,    /* int: 0/no/false/off or 1/yes/true/on */
    DMSG_ENV_PATH,    /* char[]: shorter than the field, may be empty (none) */
} dmsg_env_type;

typedef struct dmsg_env_entry {
    const char *name;
    dmsg_env_type type;
    const char *def; /* default, in the same syntax as the variable */
    const char *help;
    size_t field;    /* offsetof in the owner's struct */
    size_t size;     /* sizeof the field */
} dmsg_env_entry;

/* One owner's rows and the size of the struct they fill. */
typedef struct dmsg_env_table {
    const dmsg_env_entry *rows;
    size_t n;
    size_t size;
} dmsg_env_table;

/* One owner of settings (a layer, a transport, a tool) and its rows: the
 * unit of the settings registry (dmsg/plan/registry.c), which lists every
 * owner of this build for --help-env and for dmsgrun's check. */
typedef struct dmsg_env_owner {
    const char *owner;           /* "core", "shm", "postal", "dmsgrun", ... */
    const char *reader;          /* who reads the rows, and when: a heading of --help-env */
    const dmsg_env_table *table; /* NULL: none (a transport without settings) */
    /* Checks meaning and ranges beyond the row types (NULL: the types
     * suffice): DMSG_ERR_ENV with a detail naming the variable
     * (dmsg_last_error). */
    dmsg_status (*check)(void);
} dmsg_env_owner;

/* offsetof and sizeof of a field, for a row's last two members. */
#define DMSG_ENV_FIELD(type, field) offsetof(type, field), sizeof(((type *)0)->field)

/* Parses one value of a given type into *out (outlen must match the type). */
dmsg_status dmsg_env_parse(dmsg_env_type type, const char *text, void *out, size_t outlen);

/* Fills out (t->size bytes) from the environment, defaults for unset or
 * empty variables. On a bad value returns DMSG_ERR_ENV with a detail
 * naming the variable (dmsg_last_error) and leaves out untouched. */
dmsg_status dmsg_env_load(const dmsg_env_table *t, void *out);

/* Widens *wname and *wdef to the longest name and default of t. */
void dmsg_env_widths(const dmsg_env_table *t, int *wname, int *wdef);

/* Prints the rows (name, default, help), one a line, for --help-env, in
 * columns of those widths (so that no row runs two together); an empty
 * default shows as "none". */
void dmsg_env_print(FILE *f, const dmsg_env_table *t, int wname, int wdef);

/* One allowed value of a setting that names a choice. */
typedef struct dmsg_env_choice {
    const char *name;
    int value;
} dmsg_env_choice;

/* Looks val up among the n choices of the setting var. DMSG_ERR_ENV when it
 * is none of them, with the detail "VAR=val is not one of: ..."
 * (dmsg_last_error); prints nothing. */
dmsg_status dmsg_env_choose(const char *var, const char *val, const dmsg_env_choice *c, size_t n,
                            int *out);

#endif
