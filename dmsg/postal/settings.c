/* The postal layer's settings rows. */
#include <stddef.h>
#include "dmsg/base/env.h"
#include "dmsg/postal/settings.h"

#define F(field) DMSG_ENV_FIELD(dmsg_postal_config, field)

static const dmsg_env_entry rows[] = {
    {"DMSG_POSTAL_MAILBOX", DMSG_ENV_SIZE, "256K",
     "postal: mailbox bytes each PE keeps for each sender (1K .. 4G); a message longer than "
     "half of it minus 64 bytes is large: it goes through the windows (DMSG_POSTAL_WINDOW), "
     "or as fragments",
     F(mailbox)},
    {"DMSG_POSTAL_QUEUE", DMSG_ENV_SIZE, "64M",
     "postal: bytes a sender may hold queued for one receiver whose mailbox is full, and the "
     "largest message; beyond it a send returns DMSG_ERR_NOMEM",
     F(queue)},
    {"DMSG_POSTAL_WINDOW", DMSG_ENV_SIZE, "8M",
     "postal: bytes of each PE's landing window for large messages (0 or 1K .. 4G): a message "
     "longer than a fragment is announced, and deposited whole into the window once the "
     "receiver's receive matches it (in window-sized pieces when longer); 0, or a segment "
     "without room for it: fragments",
     F(window)},
};

static const dmsg_env_table table = {rows, sizeof rows / sizeof rows[0],
                                     sizeof(dmsg_postal_config)};

dmsg_status dmsg_postal_config_load(dmsg_postal_config *c)
{
    dmsg_postal_config n;
    dmsg_status st = dmsg_env_load(&table, &n);
    if (st) return st;
    if (n.mailbox < 1024 || n.mailbox > ((uint64_t)1 << 32))
        return DMSG_FAIL(DMSG_ERR_ENV, "DMSG_POSTAL_MAILBOX must be between 1K and 4G");
    if (n.window && (n.window < 1024 || n.window > ((uint64_t)1 << 32)))
        return DMSG_FAIL(DMSG_ERR_ENV, "DMSG_POSTAL_WINDOW must be 0 or between 1K and 4G");
    n.mailbox &= ~(uint64_t)63; /* ring positions are multiples of a header */
    *c = n;
    return DMSG_OK;
}

static dmsg_status postal_check(void)
{
    dmsg_postal_config c;
    return dmsg_postal_config_load(&c);
}

const dmsg_env_owner dmsg_postal_owner = {"postal", "dmsg_postal_init", &table,
                                          postal_check};
