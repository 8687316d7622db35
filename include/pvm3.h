/*
 * pvm3.h - the PVM 3 programming interface on dmsg's postal layer
 * (libdmsg-pvm). PVM 3 programs written for a fixed set of tasks compile
 * against this header unchanged and run under dmsgrun:
 *
 *     cc prog.c -ldmsg-pvm -ldmsg ...        dmsgrun -n 4 ./spmd
 *     dmsgrun -n 1 ./master : -n 3 ./worker  (MPMD; pvm_spawn hands out tasks)
 *
 * Written from PVM 3.4's documented interface (its manual pages); names,
 * constants and calling conventions are PVM's, so that its programs build,
 * but the text is this project's. docs/baselines.md ("PVM 3 on postal")
 * says what is kept, what differs and what is out of scope.
 *
 * Tasks. Every PE of the job is one task; its tid is PVM_TID_BASE + PE. The
 * first PVM call of a process enrolls it (as pvm_mytid): it joins the dmsg
 * job and starts the postal layer, so every PE must make a PVM call. A
 * process leaves with pvm_exit (local) and ends the job's shared state when
 * it exits (collective over all tasks, at exit()).
 *
 * Messages go through the postal layer (include/dmsg_postal.h): buffered,
 * ordered per pair of tasks, matched by source, tag and context. A task that
 * waits in any PVM call moves the postal layer's queues, so a program that is
 * correct under unbounded buffering cannot deadlock.
 *
 * Threads: one thread per task calls PVM. Errors: every call returns a
 * negative PVM error code (Pvm*) on failure and changes nothing, except where
 * noted; pvm_perror names the last error.
 *
 * SPDX-License-Identifier: BSD-3-Clause (the LICENSE file of dmsg)
 */
#ifndef PVM3_H
#define PVM3_H

#include <sys/time.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PVM_MAJOR_VERSION 3
#define PVM_MINOR_VERSION 4
#define PVM_PATCH_VERSION 6
#define PVM_VER "3.4.6"

/** tid of the task on PE p: PVM_TID_BASE + p (host 1's local ids, as PVM). */
#define PVM_TID_BASE 0x40001
/** tid of the one host's daemon (pvm_tidtohost, pvm_config). */
#define PVM_HOST_TID 0x40000

/* Data encodings of pvm_initsend and pvm_mkbuf. Every task runs on this
 * host, so Default and Raw are the same (no conversion); InPlace records
 * where the data is at pack time and copies it at send time. */
#define PvmDataDefault 0
#define PvmDataRaw 1
#define PvmDataInPlace 2
#define PvmDataFoo PvmDataInPlace
#define PvmDataTrace 4

/* Data types (pvm_psend, pvm_precv, pvm_reduce, pvm_scatter, pvm_gather). */
#define PVM_STR 0
#define PVM_BYTE 1
#define PVM_SHORT 2
#define PVM_INT 3
#define PVM_FLOAT 4
#define PVM_CPLX 5
#define PVM_DOUBLE 6
#define PVM_DCPLX 7
#define PVM_LONG 8
#define PVM_USHORT 9
#define PVM_UINT 10
#define PVM_ULONG 11

/* pvm_spawn flags: accepted; the host or architecture is never chosen. */
#define PvmTaskDefault 0
#define PvmTaskHost 1
#define PvmTaskArch 2
#define PvmTaskDebug 4
#define PvmTaskTrace 8
#define PvmMppFront 16
#define PvmHostCompl 32
#define PvmNoSpawnParent 64

/* pvm_notify kinds (PvmTaskExit notices; host and route events never happen here). */
#define PvmTaskExit 1
#define PvmHostDelete 2
#define PvmHostAdd 3
#define PvmRouteAdd 4
#define PvmRouteDelete 5
#define PvmNotifyCancel 256

/* pvm_setopt / pvm_getopt options. */
#define PvmRoute 1
#define PvmDontRoute 1
#define PvmAllowDirect 2
#define PvmRouteDirect 3
#define PvmDebugMask 2
#define PvmAutoErr 3
#define PvmOutputTid 4
#define PvmOutputCode 5
#define PvmTraceTid 6
#define PvmTraceCode 7
#define PvmFragSize 8
#define PvmResvTids 9
#define PvmSelfOutputTid 10
#define PvmSelfOutputCode 11
#define PvmSelfTraceTid 12
#define PvmSelfTraceCode 13
#define PvmShowTids 14
#define PvmPollType 15
#define PvmPollTime 16
#define PvmOutputContext 17
#define PvmTraceContext 18
#define PvmSelfOutputContext 19
#define PvmSelfTraceContext 20
#define PvmNoReset 21

/* Error codes, as PVM numbers them. */
#define PvmOk 0
#define PvmBadParam -2      /* bad argument */
#define PvmMismatch -3      /* count mismatch */
#define PvmOverflow -4      /* value too large */
#define PvmNoData -5        /* end of buffer (unpacked past the end) */
#define PvmNoHost -6        /* no such host */
#define PvmNoFile -7        /* no such executable (pvm_spawn) */
#define PvmDenied -8        /* permission denied (PVM's mailboxes) */
#define PvmDupEntry PvmDenied
#define PvmNoMem -10        /* cannot get memory */
#define PvmBadMsg -12       /* cannot decode the message */
#define PvmSysErr -14       /* the library failed (dmsg error) */
#define PvmNoBuf -15        /* no current buffer */
#define PvmNoSuchBuf -16    /* bad message id */
#define PvmNullGroup -17    /* null group name */
#define PvmDupGroup -18     /* already in the group */
#define PvmNoGroup -19      /* no such group */
#define PvmNotInGroup -20   /* not in the group */
#define PvmNoInst -21       /* no such instance */
#define PvmHostFail -22     /* host failed */
#define PvmNoParent -23     /* no parent task */
#define PvmNotImpl -24      /* not implemented (out of scope here) */
#define PvmDSysErr -25      /* pvmd system error */
#define PvmBadVersion -26   /* version mismatch */
#define PvmOutOfRes -27     /* out of resources (no task left to hand out) */
#define PvmDupHost -28      /* duplicate host */
#define PvmCantStart -29    /* cannot start pvmd */
#define PvmAlready -30      /* already in progress */
#define PvmNoTask -31       /* no such task */
#define PvmNotFound -32     /* not found */
#define PvmExists -33       /* already exists */
#define PvmHostrNMstr -34   /* hoster run on non-master host */
#define PvmParentNotSet -35 /* spawning parent not set */
#define PvmIPLoopback -36   /* master host's IP is loopback */

/** One host of the virtual machine (pvm_config): this host only. */
struct pvmhostinfo {
    int hi_tid;      /* its daemon's tid (PVM_HOST_TID) */
    char *hi_name;   /* host name */
    char *hi_arch;   /* architecture ("LINUX64" or "LINUX") */
    int hi_speed;    /* relative speed (1000) */
    int hi_dsig;     /* data signature */
};

/* Mailbox flags (pvm_putinfo, pvm_recvinfo) and the class description of
 * pvm_getmboxinfo. */
#define PvmMboxDefault 0       /* put: one instance, its owner's, gone at its exit */
#define PvmMboxPersistent 1    /* put: stays after its owner's exit (owner 0 then) */
#define PvmMboxMultiInstance 2 /* put: a new instance at the lowest free index */
#define PvmMboxOverWritable 4  /* put: any task may overwrite or delete it */
#define PvmMboxFirstAvail 8    /* recv: the first index >= the one given */
#define PvmMboxReadAndDelete 16 /* recv: and delete it (if allowed) */
#define PvmMboxWaitForInfo 32  /* recv: wait until it is there */
#define PvmMboxMaxFlag 512
/* The class PVM's tasks with PvmNoReset put themselves in (never here). */
#define PVMNORESETCLASS "###_PVM_NO_RESET_###"
#define PvmMboxDirectIndexShift 10
#define PvmMboxMaxDirectIndex ((unsigned)1 << (31 - PvmMboxDirectIndexShift))
/* put: replace the overwritable entry at index i (0 <= i < the maximum) */
#define PvmMboxDirectIndex(i)                                                                      \
    ((unsigned)(i) < PvmMboxMaxDirectIndex ? (int)((unsigned)(i) << PvmMboxDirectIndexShift) : 0)
#define PvmMboxDirectIndexOf(f)                                                                    \
    ((int)(((unsigned)(f) >> PvmMboxDirectIndexShift) & (PvmMboxMaxDirectIndex - 1)))
struct pvmmboxinfo {
    char *mi_name;    /* class name */
    int mi_nentries;  /* entries of the class */
    int *mi_indices;  /* their indices */
    int *mi_owners;   /* their owners' tids */
    int *mi_flags;    /* their flags */
};

/** One task (pvm_tasks). */
struct pvmtaskinfo {
    int ti_tid;      /* its tid */
    int ti_ptid;     /* its parent's tid, 0 when none (yet) */
    int ti_host;     /* its host's tid */
    int ti_flag;     /* status flags (0) */
    char *ti_a_out;  /* the program's name */
    int ti_pid;      /* its process id */
};

/** A message's header (pvm_getminfo, pvm_setminfo). */
struct pvmminfo {
    int len; /* bytes of the message body (as packed: no conversion here) */
    int ctx; /* context: a received message's, or a send buffer's last send's */
    int tag; /* tag: likewise (0 for a buffer never sent) */
    int wid; /* wait id: travels with the message (pvm_setminfo sets it) */
    int enc; /* encoding: this host's data signature (PVM_DSIG of the library) */
    int crc; /* checksum of the body: always 0 (PVM leaves it 0 too) */
    int src; /* the sender's tid (a packed buffer: this task's) */
    int dst; /* the receiver's tid (a send buffer: its last send's, 0 before) */
};

/* ------------------------------------------------------------- tasks */

/** This task's tid; enrolls the process at its first PVM call. */
int pvm_mytid(void);
/** The tid of the task whose pvm_spawn handed this one out; PvmNoParent for
 * a task of the launch's first program. A task of a later program that has
 * not been handed out yet waits (moving messages) until it is, at most
 * DMSG_TIMEOUT seconds (then PvmSysErr). */
int pvm_parent(void);
/** The tasks the launch started together with this one (its program's block
 * of the dmsgrun command line), in tid order; *tids points to local storage.
 * Returns their number. */
int pvm_siblings(int **tids);
/** Leaves PVM (local): delivers what this task still has queued, frees its
 * buffers and leaves its groups; later PVM calls fail with PvmSysErr. The
 * process goes on; the job's shared state ends when every task's process has
 * exited. Returns PvmOk. */
int pvm_exit(void);
/** Hands out n tasks of the running job whose program has task's base name
 * (see docs/baselines.md): writes their tids to tids[] and makes this task
 * their parent; no process is started. Returns the number handed out; the
 * remaining tids[] entries get PvmNoFile (no such program in the launch) or
 * PvmOutOfRes (all of them already handed out). PvmBadParam: task NULL,
 * n < 1 or tids NULL. where and flag are accepted and ignored. */
int pvm_spawn(char *task, char **argv, int flag, char *where, int ntask, int *tids);
/** Not supported (tasks are the launch's): PvmNotImpl, unless tid is this
 * task's own (then as pvm_exit followed by exit(0)). PvmBadParam for a tid
 * that is no task. */
int pvm_kill(int tid);
/** The host's daemon tid (PVM_HOST_TID), or PvmBadParam. */
int pvm_tidtohost(int tid);
/** One host: *nhost = *narch = 1, *hostp points to local storage. */
int pvm_config(int *nhost, int *narch, struct pvmhostinfo **hostp);
/** Tasks on `where` (0: all, the host's tid, or a task's tid). */
int pvm_tasks(int where, int *ntask, struct pvmtaskinfo **taskp);
/** Whether tid is a task: PvmOk, PvmNoTask, or a negative host status. */
int pvm_pstat(int tid);
/** Host status: PvmOk for this host, PvmNoHost otherwise. */
int pvm_mstat(char *host);
/** Prints "msg: the last error's text" on stderr. Returns PvmOk. */
int pvm_perror(char *msg);
/** The text of the last error (as pvm_perror prints it; a later successful
 * call leaves it): a string of the library, not to be changed or freed. */
char *pvm_strerror(void);
/** Output of the tasks already goes to dmsgrun's standard output: accepted
 * (PvmOk) for any FILE; nothing is redirected. */
int pvm_catchout(void *ff);
/** Options: PvmRoute, PvmAutoErr, PvmFragSize, PvmOutputTid/Code,
 * PvmShowTids, PvmResvTids, PvmPollType/Time are kept and read back (their
 * effect is postal's own); others PvmBadParam. Returns the old value. */
int pvm_setopt(int what, int val);
int pvm_getopt(int what);
/** The old names of pvm_setopt(PvmRoute...) etc. */
int pvm_advise(int what);
int pvm_setdebug(int mask);
int pvm_serror(int how);
/** The version string ("3.4.6"). */
char *pvm_version(void);
/** Sends signal signum to task tid (kill(2) of its process; the task's own
 * tid too). PvmBadParam: no such task, or signum outside 0 .. NSIG - 1;
 * PvmNotImpl for a task on another host (over ofi); PvmSysErr if kill
 * fails. (PVM returns PvmOk for any tid: its daemon sends it later.) */
int pvm_sendsig(int tid, int signum);
/** The data signature of architecture arch (PVM_DSIG of this host for its
 * hi_arch, "LINUX64"), or PvmNotFound for an architecture the machine does
 * not have; PvmBadParam for NULL. */
int pvm_archcode(char *arch);
/** The host's time of day in *clk and its difference from this task's clock
 * in *delta (0: one host, one clock); either may be NULL. host: the host's
 * tid or any task's tid (as PVM); else PvmNoHost. */
int pvm_hostsync(int host, struct timeval *clk, struct timeval *delta);
/** Adds (removes) name to (from) the colon-separated list in the
 * environment variable PVM_EXPORT, as PVM does; no duplicates. PVM passes
 * those variables to the tasks it spawns: here pvm_spawn starts nothing,
 * so the list has no effect. PvmBadParam: name NULL, empty or with ':'. */
int pvm_export(char *name);
int pvm_unexport(char *name);
/** Tasks that set PvmNoReset: none (pvm_setopt refuses that option);
 * *ntids = 0. */
int pvm_getnoresets(int **tids, int *ntids);
/** PvmTaskExit: when a task of tids[0 .. cnt-1] leaves PVM (pvm_exit, its
 * process's exit, pvm_kill), this task gets a message with msgtag, in the
 * context current now, from that task, holding its tid as one int; a tid
 * that is no task is noticed at once (as PVM, for a task already gone),
 * this task's own tid never. One watch per pair of tasks: a later
 * pvm_notify of the same task replaces the tag. what | PvmNotifyCancel
 * with the same msgtag removes the watch and delivers its notice now, as
 * PVM does. PvmHostDelete, PvmHostAdd, PvmRouteAdd/Delete: accepted (PvmOk),
 * never fire (one host that stays). PvmBadParam: unknown what, msgtag < 0,
 * cnt < 0 or tids NULL. Local, but the watched task's words are written one-
 * sidedly (atomics). */
int pvm_notify(int what, int msgtag, int cnt, int *tids);
/* The mailbox: named, indexed messages any task can read (PVM's; see
 * docs/baselines.md). Each call is atomic with respect to the others (a
 * lock on the job's one table, in PE 0's memory); none waits for another
 * task's PVM calls. Capacity: 128 entries, 256 KiB of message bytes in all
 * (PvmOutOfRes, PvmNoMem beyond). Names: 1 to 63 characters. */
/** Stores the body of buffer bufid under name (see the PvmMbox* flags);
 * returns its index. A default entry (index 0) of the same name is replaced
 * if this task owns it or it is overwritable, else PvmExists; a direct
 * index needs an overwritable entry there (PvmNotFound, PvmDenied).
 * PvmBadParam (name, bufid <= 0, flags < 0), PvmNoSuchBuf. */
int pvm_putinfo(char *name, int bufid, int flags);
/** A copy of entry (name, index) (PvmMboxFirstAvail: the lowest index >=
 * index) in a new buffer, which becomes the active receive buffer (the one
 * active before stays, not freed); it reads as a message from the entry's
 * owner (from this task once the owner has exited), tag 0. PvmNotFound
 * (PvmMboxWaitForInfo: waits, moving messages, until it is put);
 * PvmMboxReadAndDelete also deletes it (PvmDenied unless this task may).
 * PvmBadParam (name, index < 0, flags < 0). */
int pvm_recvinfo(char *name, int index, int flags);
/** Deletes entry (name, index): its owner, or anyone for an overwritable
 * one (else PvmDenied); PvmNotFound. PvmOk (real PVM returns 1). */
int pvm_delinfo(char *name, int index, int flags);
/** The classes (names) matching the glob pattern (NULL or "": all), in the
 * order they were first put, each with its entries' indices, owners and
 * flags, in storage of the library valid until the next call. PvmBadParam
 * for NULL outputs. */
int pvm_getmboxinfo(char *pattern, int *nclasses, struct pvmmboxinfo **classes);
/* PVM 3.3's names for it, as PVM 3.4.6 maps them. */
/** A persistent instance of name: index -1, at the lowest free index; else
 * at index, PvmDupEntry (PvmDenied) if taken. Returns the index. */
int pvm_insert(char *name, int index, int bufid);
/** Entry (name, index), index -1: the lowest; *bufid gets a new buffer with
 * it (not made the active one). Returns the index; PvmNotFound. */
int pvm_lookup(char *name, int index, int *bufid);
/** pvm_delinfo(name, index, 0); returns index. PvmBadParam for index < 0. */
int pvm_delete(char *name, int index);
/** Out of scope (return PvmNotImpl, do nothing): hosts, message handlers,
 * tracing, hosters, the daemon's sockets. */
int pvm_addhosts(char **names, int count, int *svp);
int pvm_delhosts(char **names, int count, int *svp);
int pvm_halt(void);
int pvm_addmhf(int src, int tag, int ctx, int (*fn)(int));
int pvm_delmhf(int mhid);
int pvm_start_pvmd(int argc, char **argv, int block);
int pvm_reg_hoster(void);
int pvm_reg_tasker(void);
int pvm_reg_rm(struct pvmhostinfo **hip);
int pvm_reg_tracer(int tctx, int ttag, int octx, int otag, char *tmask, int tbuf, int topt);
int pvm_tickle(int how, int *nargs, int *args, int *nres);
int pvm_getfds(int **fds);

/* ----------------------------------------------------------- buffers */

/** A new empty send buffer of this encoding (not made active). */
int pvm_mkbuf(int encoding);
/** Frees a buffer; the active send or receive buffer becomes none. */
int pvm_freebuf(int bufid);
/** Clears the active send buffer (freeing it) and makes a new one. */
int pvm_initsend(int encoding);
/** Switches the active send / receive buffer to bufid (0: none); returns the
 * previous one (which is kept, not freed). */
int pvm_setsbuf(int bufid);
int pvm_setrbuf(int bufid);
/** The active send / receive buffer (0 when none). */
int pvm_getsbuf(void);
int pvm_getrbuf(void);
/** Size in bytes, tag and source tid of a received message buffer. */
int pvm_bufinfo(int bufid, int *bytes, int *msgtag, int *tid);
/** Reads the header of buffer bufid into *mi (see struct pvmminfo). Local.
 * PvmBadParam (bufid <= 0, mi NULL), PvmNoSuchBuf. */
int pvm_getminfo(int bufid, struct pvmminfo *mi);
/** Sets ctx, tag, wid, src and dst of buffer bufid's header from *mi (len,
 * enc and crc describe the data and are not set). A send overwrites ctx,
 * tag and dst with its own and carries wid to the receiver, whose buffer's
 * src stays the real sender. On a received buffer, pvm_bufinfo then reports
 * the tag and src set. Local; errors as pvm_getminfo. */
int pvm_setminfo(int bufid, struct pvmminfo *mi);
/** The wait id of buffer bufid's header (pvm_getminfo's wid), or
 * PvmBadParam (bufid <= 0), PvmNoSuchBuf. */
int pvm_getmwid(int bufid);
/** Sets the wait id of buffer bufid (as pvm_setminfo's wid); PvmOk, or
 * errors as pvm_getmwid. */
int pvm_setmwid(int bufid, int waitid);

/* ------------------------------------------------- packing, unpacking */

/* Pack n items taken every `stride` items from p into the active send
 * buffer. PvmNoBuf without one, PvmBadParam for n < 0, stride < 1 or NULL,
 * PvmNoMem. With PvmDataInPlace only where the data is gets recorded: it must
 * not change until the message is sent. */
int pvm_pkbyte(char *p, int n, int stride);
int pvm_pkshort(short *p, int n, int stride);
int pvm_pkint(int *p, int n, int stride);
int pvm_pklong(long *p, int n, int stride);
int pvm_pkfloat(float *p, int n, int stride);
int pvm_pkdouble(double *p, int n, int stride);
int pvm_pkcplx(float *p, int n, int stride);
int pvm_pkdcplx(double *p, int n, int stride);
int pvm_pkushort(unsigned short *p, int n, int stride);
int pvm_pkuint(unsigned int *p, int n, int stride);
int pvm_pkulong(unsigned long *p, int n, int stride);
/** A NUL-terminated string (its length travels with it). */
int pvm_pkstr(char *s);
/** Any type by PVM_* code (pvm_pack(buf, n, stride, PVM_INT) ...). */
int pvm_pack(void *p, int n, int stride, int type);
/** Packs by a printf-like format (PVM's): each conversion is
 * '%' [count] ['.' stride] {h l u} c|d|f|x|s, count and stride digits or
 * '*' (taken from the arguments, an int each); characters outside
 * conversions are skipped. Without count and stride an item is passed by
 * value (c, d, hd: int; ld: long; f, lf: double; f packs a float), with
 * either of them by address (count items every stride items). x (complex
 * float; lx double complex) and s (a string, as pvm_pkstr) always take an
 * address. "%+" at the very start takes an int encoding and calls
 * pvm_initsend first. The whole format and every count, stride and
 * pointer are checked before anything is packed: PvmBadParam (an unknown
 * conversion, a '+' elsewhere, count < 0, stride < 1, a NULL address) and
 * nothing changes (PVM itself packs the items before a bad conversion);
 * PvmNoBuf, PvmNoMem (the items of this call are taken out again). */
int pvm_packf(const char *fmt, ...);

/* Unpack n items into every `stride`th place of p, in the order packed,
 * from the active receive buffer. When fewer bytes are left than asked for,
 * what is left is written and PvmNoData returned (the buffer is then at its
 * end). PvmNoBuf without one. */
int pvm_upkbyte(char *p, int n, int stride);
int pvm_upkshort(short *p, int n, int stride);
int pvm_upkint(int *p, int n, int stride);
int pvm_upklong(long *p, int n, int stride);
int pvm_upkfloat(float *p, int n, int stride);
int pvm_upkdouble(double *p, int n, int stride);
int pvm_upkcplx(float *p, int n, int stride);
int pvm_upkdcplx(double *p, int n, int stride);
int pvm_upkushort(unsigned short *p, int n, int stride);
int pvm_upkuint(unsigned int *p, int n, int stride);
int pvm_upkulong(unsigned long *p, int n, int stride);
/** A string packed by pvm_pkstr (the caller's buffer must hold it). */
int pvm_upkstr(char *s);
int pvm_unpack(void *p, int n, int stride, int type);
/** Unpacks by a format as pvm_packf's, every item by address (c: char *,
 * d: int *, hd: short *, ld: long *, f: float *, lf: double *, x: float *
 * pairs, lx: double * pairs, s: char *). A bad format ("%+" included: PVM
 * accepts it only in pvm_packf), count or address is PvmBadParam before
 * anything is unpacked; past the end of the message the items are written
 * as far as the message goes and PvmNoData is returned, as for pvm_upk*. */
int pvm_unpackf(const char *fmt, ...);
/** Packs message bufid whole (its header, as pvm_getminfo's, and its body)
 * into the active send buffer; pvm_pkmesgbody packs its body only (then
 * read with pvm_upk*). The body is copied, also into an in-place buffer.
 * PvmBadParam (bufid <= 0, or the active send buffer itself), PvmNoSuchBuf,
 * PvmNoBuf, PvmNoMem (nothing packed). */
int pvm_pkmesg(int bufid);
int pvm_pkmesgbody(int bufid);
/** Unpacks a message packed by pvm_pkmesg from the active receive buffer
 * into a new buffer (a received one: pvm_bufinfo, pvm_getminfo and, after
 * pvm_setrbuf, pvm_upk* read it); the active receive buffer stays. Returns
 * the new buffer's id; PvmNoBuf, PvmNoData (not a whole message left:
 * nothing taken), PvmNoMem. */
int pvm_upkmesg(void);

/* ------------------------------------------------- sending, receiving */

/** Sends the active send buffer to tid with msgtag (>= 0) in the current
 * context; the buffer keeps its contents. PvmBadParam (tid or tag), PvmNoBuf. */
int pvm_send(int tid, int msgtag);
/** pvm_send to each of the n tids (not to this task itself). */
int pvm_mcast(int *tids, int n, int msgtag);
/** Sends n items of type from p, without the send buffer. */
int pvm_psend(int tid, int msgtag, void *p, int n, int type);
/** Waits for a message from tid (-1: any) with msgtag (-1: any) in the
 * current context; it becomes the new active receive buffer and the old one
 * is freed. Returns the new buffer's id. */
int pvm_recv(int tid, int msgtag);
/** As pvm_recv without waiting: 0 when there is no match. */
int pvm_nrecv(int tid, int msgtag);
/** As pvm_recv, waiting at most *tmout (NULL: for ever): 0 on time-out. */
int pvm_trecv(int tid, int msgtag, struct timeval *tmout);
/** Whether a matching message is there: its (new) buffer id for pvm_bufinfo,
 * or 0; the active receive buffer is left alone. */
int pvm_probe(int tid, int msgtag);
/** Receives into n items of type at p; a longer message is truncated (the
 * rest dropped). The active receive buffer is left alone. Source, tag and
 * the message's item count go to *rtid, *rtag, *rcnt (each may be NULL). */
int pvm_precv(int tid, int msgtag, void *p, int n, int type, int *rtid, int *rtag, int *rcnt);
/** Replaces the matching function of recv, nrecv, trecv and probe (NULL: the
 * default); returns the previous one (NULL for the default). It is called as
 * fn(bufid, tid, tag) for each waiting message (pvm_bufinfo works on bufid)
 * and returns < 0 (fail with it), 0 (no), 1 (take this one), > 1 (rank). */
int (*pvm_recvf(int (*fn)(int bufid, int tid, int tag)))(int, int, int);

/* Message contexts: messages match only in the context they were sent in. */
/** A new context, unique in the job. */
int pvm_newcontext(void);
/** Makes ctx the current context; returns the previous one. */
int pvm_setcontext(int ctx);
/** The current context (0, the base, at start). */
int pvm_getcontext(void);
/** Gives a context back (PvmOk; PvmBadParam for the base). */
int pvm_freecontext(int ctx);

/* --------------------------------------------------------------- groups */

/** Joins the named group; returns the instance number (the lowest free). */
int pvm_joingroup(char *group);
/** Leaves the group; PvmNotInGroup if not a member. */
int pvm_lvgroup(char *group);
/** Members of the group, PvmNoGroup when it has none. */
int pvm_gsize(char *group);
/** Instance of tid in the group; PvmNotInGroup. */
int pvm_getinst(char *group, int tid);
/** tid of instance inst; PvmNoInst. */
int pvm_gettid(char *group, int inst);
/** Waits until `count` members (-1: all members now) have called it. */
int pvm_barrier(char *group, int count);
/** Waits until the group has `size` members (-1: as it has) and freezes it. */
int pvm_freezegroup(char *group, int size);
/** Sends the active send buffer to every member but this task. */
int pvm_bcast(char *group, int msgtag);
/** Combines count items of datatype from every member into data at instance
 * root: func(&datatype, data, other, &count, &info) is called on the root
 * for each other member's data. Members other than root return at once. */
int pvm_reduce(void (*func)(int *, void *, void *, int *, int *), void *data, int count,
               int datatype, int msgtag, char *group, int root);
/** Root sends count items to each instance i from data + i * count items;
 * every member (root too) receives its part into result. */
int pvm_scatter(void *result, void *data, int count, int datatype, int msgtag, char *group,
                int root);
/** Each member sends count items of data; root stores instance i's items at
 * result + i * count items. */
int pvm_gather(void *result, void *data, int count, int datatype, int msgtag, char *group,
               int root);

/* The reduction functions (for pvm_reduce). The library's names carry the
 * pvm_ prefix; PVM's spellings are these macros. */
void pvm_op_max(int *datatype, void *x, void *y, int *num, int *info);
void pvm_op_min(int *datatype, void *x, void *y, int *num, int *info);
void pvm_op_sum(int *datatype, void *x, void *y, int *num, int *info);
void pvm_op_product(int *datatype, void *x, void *y, int *num, int *info);
#define PvmMax pvm_op_max
#define PvmMin pvm_op_min
#define PvmSum pvm_op_sum
#define PvmProduct pvm_op_product

#ifdef __cplusplus
}
#endif
#endif /* PVM3_H */
