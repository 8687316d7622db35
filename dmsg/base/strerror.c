/* Status strings. */
#include "dmsg.h"

const char *dmsg_strerror(int status)
{
    switch (status) {
    case DMSG_OK: return "success";
    case DMSG_ERR_ARG: return "invalid argument";
    case DMSG_ERR_NULL: return "null pointer argument";
    case DMSG_ERR_PE: return "PE number out of range";
    case DMSG_ERR_RANGE: return "address outside the symmetric segment or its allocated blocks, or index outside its array";
    case DMSG_ERR_OVERFLOW: return "size or extent overflows";
    case DMSG_ERR_NOMEM: return "symmetric segment or counter table exhausted";
    case DMSG_ERR_COLLECTIVE: return "PEs disagree on a collective call";
    case DMSG_ERR_COUNTER: return "invalid or destroyed counter";
    case DMSG_ERR_NOT_INIT: return "dmsg is not initialized";
    case DMSG_ERR_STATE: return "call not allowed in this state";
    case DMSG_ERR_TIMEOUT: return "wait timed out (DMSG_TIMEOUT)";
    case DMSG_ERR_TRANSPORT: return "transport failure";
    case DMSG_ERR_ABORTED: return "job aborted (a PE failed)";
    case DMSG_ERR_ALIGN: return "misaligned address or offset";
    case DMSG_ERR_UNSUPPORTED: return "not supported by this transport";
    case DMSG_ERR_HANDLE: return "invalid, retired or destroyed handle (request or plan)";
    case DMSG_ERR_ENV: return "invalid environment setting";
    case DMSG_ERR_SIZE: return "message does not fit the receive buffer";
    case DMSG_ERR_TEAM: return "invalid or freed team, or this PE is not a member";
    default: return "unknown dmsg status";
    }
}
