/* The processor's hint inside a busy-wait loop (x86 PAUSE, Arm YIELD):
 * it saves power and lets a sibling hyperthread run while one polls. */
#ifndef DMSG_BASE_RELAX_H
#define DMSG_BASE_RELAX_H

static inline void dmsg_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

#endif
