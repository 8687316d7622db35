/* A sequentially consistent fence that every build accepts. gcc refuses
 * atomic_thread_fence under -fsanitize=thread (ThreadSanitizer does not
 * model fences); there the fence is a seq_cst read-modify-write of a word
 * of the calling thread's own, which the hardware orders alike (a locked
 * instruction on x86) and which ThreadSanitizer understands. */
#ifndef DMSG_BASE_FENCE_H
#define DMSG_BASE_FENCE_H

#include <stdatomic.h>

#if defined(__SANITIZE_THREAD__)
static inline void dmsg_fence_seq_cst(void)
{
    static _Thread_local _Atomic int word;
    atomic_fetch_add_explicit(&word, 0, memory_order_seq_cst);
}
#else
static inline void dmsg_fence_seq_cst(void)
{
    atomic_thread_fence(memory_order_seq_cst);
}
#endif

#endif
