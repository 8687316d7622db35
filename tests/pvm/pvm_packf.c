/* pvm_packf / pvm_unpackf, message headers (pvm_getminfo, pvm_setminfo,
 * pvm_getmwid, pvm_setmwid), messages in messages (pvm_pkmesg,
 * pvm_pkmesgbody, pvm_upkmesg) and the task calls pvm_sendsig,
 * pvm_archcode, pvm_hostsync, pvm_export, pvm_unexport, pvm_getnoresets,
 * pvm_strerror, on
 * one task, through messages to itself. The
 * expected bytes and header fields are what real PVM 3.4.6 gives with
 * PvmDataRaw on x86-64 Linux; this file builds against real PVM too
 * (cc -DREAL_PVM pvm_packf.c -lpvm3, run under a pvmd), where the checks
 * marked OURS (a bad format changes nothing) are left out: PVM packs the
 * items before a bad conversion. */
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include "tests/pvm/pvm_test.h"

/* The active receive buffer's bytes (at most cap) into out; their number. */
static int body(unsigned char *out, int cap)
{
    int bytes;
    EXPECT_EQ(pvm_bufinfo(pvm_getrbuf(), &bytes, NULL, NULL), PvmOk);
    EXPECT(bytes <= cap);
    EXPECT_EQ(pvm_upkbyte((char *)out, bytes, 1), PvmOk);
    return bytes;
}

/* Sends the active send buffer to this task and receives it. */
static void loop(int tag)
{
    EXPECT_EQ(pvm_send(pvm_mytid(), tag), PvmOk);
    EXPECT(pvm_recv(pvm_mytid(), tag) > 0);
}

static void values(void)
{
    /* by value: int, short, long, char, float (a double argument), double, string */
    EXPECT_EQ(pvm_packf("%+ %d %hd %ld %c %f %lf %s", PvmDataRaw, 0x11223344, 0x5566,
                        0x778899aabbL, 'Z', 1.25, 2.5, "hey"),
              PvmOk);
    loop(5);
    static const unsigned char want[] = {
        0x44, 0x33, 0x22, 0x11, 0x66, 0x55, 0xbb, 0xaa, 0x99, 0x88, 0x77, 0x00,
        0x00, 0x00, 0x5a, 0x00, 0x00, 0xa0, 0x3f, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x04, 0x40, 0x04, 0x00, 0x00, 0x00, 0x68, 0x65, 0x79, 0x00};
    unsigned char got[64];
    EXPECT_EQ(body(got, sizeof got), (int)sizeof want);
    EXPECT(!memcmp(got, want, sizeof want));
}

static void arrays(void)
{
    int ia[6] = {1, 2, 3, 4, 5, 6};
    short sa[4] = {7, 8, 9, 10};
    long la[3] = {11, 12, 13};
    float fa[4] = {1.5f, 2.5f, 3.5f, 4.5f};
    double da[3] = {0.25, 0.5, 0.75};
    float xa[4] = {1, 2, 3, 4};
    double dxa[4] = {5, 6, 7, 8};
    unsigned u = 4000000000u;
    /* counts and strides from the format and from arguments, text skipped */
    EXPECT_EQ(pvm_packf("%+%3d %*.2d ints %2hd %.3ld %2.2f %*lf %x %lx %2c %ud", PvmDataRaw, ia,
                        2, ia, sa, la, fa, 2, da, xa, dxa, "ab", u),
              PvmOk);
    loop(6);
    int i3[3], i2[2];
    short s2[2];
    long l1;
    float f4[4] = {0, 0, 0, 0}, x2[2];
    double d2[2], dx2[2];
    char c2[2];
    unsigned u1;
    int ilen = -1, istride = 2;
    EXPECT_EQ(pvm_unpackf("%3d %*d %2hd %ld %*.*f %2lf %x %lx %2c %ud", i3, 2, i2, s2, &l1, ilen = 2,
                          istride, f4, d2, x2, dx2, c2, &u1),
              PvmOk);
    EXPECT(i3[0] == 1 && i3[1] == 2 && i3[2] == 3);
    EXPECT(i2[0] == 1 && i2[1] == 3);
    EXPECT(s2[0] == 7 && s2[1] == 8);
    EXPECT_EQ(l1, 11);
    EXPECT(f4[0] == 1.5f && f4[1] == 0 && f4[2] == 3.5f && f4[3] == 0); /* stride 2 */
    EXPECT(d2[0] == 0.25 && d2[1] == 0.5);
    EXPECT(x2[0] == 1 && x2[1] == 2);
    EXPECT(dx2[0] == 5 && dx2[1] == 6);
    EXPECT(c2[0] == 'a' && c2[1] == 'b');
    EXPECT_EQ(u1, 4000000000u);
    /* past the end: as pvm_upk*, PvmNoData */
    int x = 7;
    EXPECT_EQ(pvm_unpackf("%d", &x), PvmNoData);
    /* strings and unpackf of values */
    EXPECT_EQ(pvm_initsend(PvmDataRaw), pvm_getsbuf());
    EXPECT_EQ(pvm_packf("%d %lf %s", 42, 3.5, "str"), PvmOk);
    loop(7);
    double d;
    char s[8];
    EXPECT_EQ(pvm_unpackf("%d %lf %s", &x, &d, s), PvmOk);
    EXPECT(x == 42 && d == 3.5 && !strcmp(s, "str"));
}

static void bad_formats(void)
{
    int one = 1, x;
    EXPECT(pvm_initsend(PvmDataRaw) > 0);
    int sb = pvm_getsbuf();
    EXPECT_EQ(pvm_packf("%d %q %d", 1, 2), PvmBadParam);
    EXPECT_EQ(pvm_packf("%d %", 3), PvmBadParam);
    EXPECT_EQ(pvm_packf("%d %+", 1, 2), PvmBadParam); /* '+' only at the start */
#ifndef REAL_PVM
    /* OURS: nothing of a bad call was packed, no buffer changed */
    EXPECT_EQ(pvm_packf("%*d", -1, &one), PvmBadParam);
    EXPECT_EQ(pvm_packf("%.0d", &one), PvmBadParam);
    EXPECT_EQ(pvm_packf("%d %*d", 5, 1, NULL), PvmBadParam);
    EXPECT_EQ(pvm_packf("%+ %d %q", 99, 1), PvmBadParam);
    EXPECT_EQ(pvm_packf("%+ %d", 99, 1), PvmBadParam); /* no such encoding */
    EXPECT_EQ(pvm_getsbuf(), sb);
    int bytes;
    EXPECT_EQ(pvm_bufinfo(sb, &bytes, NULL, NULL), PvmOk);
    EXPECT_EQ(bytes, 0);
    EXPECT_EQ(pvm_packf(NULL), PvmBadParam);
#else
    sb = pvm_initsend(PvmDataRaw); /* PVM kept the items before each bad conversion */
#endif
    EXPECT_EQ(pvm_packf("text %d more%d", 4, 5), PvmOk);
    loop(8);
    EXPECT_EQ(pvm_unpackf("%+", 1), PvmBadParam); /* unpackf takes no '+' */
    EXPECT_EQ(pvm_unpackf("%q", &x), PvmBadParam);
#ifndef REAL_PVM
    EXPECT_EQ(pvm_unpackf("%d %d %q", &x, &x), PvmBadParam);
    EXPECT_EQ(pvm_unpackf("%*d", -2, &x), PvmBadParam);
    EXPECT_EQ(pvm_unpackf("%d", NULL), PvmBadParam);
#endif
    int two[2];
    EXPECT_EQ(pvm_unpackf("%2d", two), PvmOk); /* nothing was taken by the bad calls */
    EXPECT(two[0] == 4 && two[1] == 5);
    /* no buffer */
    EXPECT_EQ(pvm_setsbuf(0), sb);
    EXPECT_EQ(pvm_packf("%d", 1), PvmNoBuf);
    pvm_freebuf(sb);
    pvm_freebuf(pvm_setrbuf(0));
    EXPECT_EQ(pvm_unpackf("%d", &x), PvmNoBuf);
}

static void in_place(void)
{
    int ia[3] = {1, 2, 3};
    int ctx = pvm_newcontext(), old = pvm_setcontext(ctx);
    /* values are copied (they live in pvm_packf's frame), arrays noted */
    EXPECT_EQ(pvm_packf("%+ %3d %d", PvmDataInPlace, ia, 9), PvmOk);
    ia[0] = 100; /* read at pvm_send */
    loop(11);
    int got[4];
    EXPECT_EQ(pvm_unpackf("%4d", got), PvmOk);
    EXPECT(got[0] == 100 && got[1] == 2 && got[2] == 3 && got[3] == 9);
    pvm_setcontext(old);
    pvm_freecontext(ctx);
}

static void headers(void)
{
    int me = pvm_mytid();
    struct pvmminfo mi;
    int ia[2] = {1, 2};
    EXPECT(pvm_initsend(PvmDataRaw) > 0);
    EXPECT_EQ(pvm_pkint(ia, 2, 1), PvmOk);
    int sb = pvm_getsbuf();
    /* a fresh send buffer: its bytes, this task, no send yet */
    EXPECT_EQ(pvm_getminfo(sb, &mi), PvmOk);
    EXPECT(mi.len == 8 && mi.ctx == 0 && mi.tag == 0 && mi.wid == 0 && mi.crc == 0);
    EXPECT_EQ(mi.enc, 0x408c41);
    EXPECT(mi.src == me && mi.dst == 0);
    /* what pvm_setminfo sets; len, enc and crc stay */
    mi.wid = 4242;
    mi.tag = 77;
    mi.ctx = 5;
    mi.src = 0x40099;
    mi.dst = 0x400aa;
    mi.len = 999;
    mi.enc = 3;
    mi.crc = 7;
    EXPECT_EQ(pvm_setminfo(sb, &mi), PvmOk);
    EXPECT_EQ(pvm_getminfo(sb, &mi), PvmOk);
    EXPECT(mi.len == 8 && mi.ctx == 5 && mi.tag == 77 && mi.wid == 4242);
    EXPECT(mi.enc == 0x408c41 && mi.crc == 0 && mi.src == 0x40099 && mi.dst == 0x400aa);
    /* a send sets tag, ctx and dst; src stays what was set */
    EXPECT_EQ(pvm_send(me, 10), PvmOk);
    EXPECT_EQ(pvm_getminfo(sb, &mi), PvmOk);
    EXPECT(mi.ctx == 0 && mi.tag == 10 && mi.wid == 4242 && mi.src == 0x40099 && mi.dst == me);
    /* the wait id travels; the receiver sees the real sender */
    int rb = pvm_recv(-1, -1);
    EXPECT(rb > 0);
    EXPECT_EQ(pvm_getminfo(rb, &mi), PvmOk);
    EXPECT(mi.len == 8 && mi.ctx == 0 && mi.tag == 10 && mi.wid == 4242);
    EXPECT(mi.enc == 0x408c41 && mi.src == me && mi.dst == me);
    /* the reply idiom of PVM's manual: the same wait id back */
    struct pvmminfo mr;
    EXPECT_EQ(pvm_getminfo(rb, &mr), PvmOk);
    mi.wid = 0;
    EXPECT_EQ(pvm_setminfo(sb, &mi), PvmOk);
#ifndef REAL_PVM /* declared by PVM's pvm3.h, missing from its libpvm3 */
    EXPECT_EQ(pvm_getmwid(rb), 4242);
    EXPECT_EQ(pvm_getmwid(sb), 0);
    EXPECT_EQ(pvm_setmwid(sb, 17), PvmOk);
    EXPECT_EQ(pvm_getminfo(sb, &mi), PvmOk);
    EXPECT_EQ(mi.wid, 17);
    EXPECT_EQ(pvm_getmwid(0), PvmBadParam);
    EXPECT_EQ(pvm_setmwid(999, 1), PvmNoSuchBuf);
#endif
    EXPECT_EQ(pvm_getminfo(sb, &mi), PvmOk);
    mi.wid = mr.wid;
    EXPECT_EQ(pvm_setminfo(sb, &mi), PvmOk);
    EXPECT_EQ(pvm_psend(me, 12, ia, 1, PVM_INT), PvmOk); /* psend carries none */
    EXPECT_EQ(pvm_send(me, 13), PvmOk);
    rb = pvm_recv(me, 12);
    EXPECT_EQ(pvm_getminfo(rb, &mi), PvmOk);
    EXPECT_EQ(mi.wid, 0);
    rb = pvm_recv(me, 13);
    EXPECT_EQ(pvm_getminfo(rb, &mi), PvmOk);
    EXPECT_EQ(mi.wid, 4242);
    /* a large message (windows or fragments) carries it too */
    static char big[300000];
    big[299999] = 5;
    EXPECT(pvm_initsend(PvmDataRaw) > 0);
    EXPECT_EQ(pvm_packf("%*c", (int)sizeof big, big), PvmOk);
    EXPECT_EQ(pvm_getminfo(pvm_getsbuf(), &mi), PvmOk);
    mi.wid = -77;
    EXPECT_EQ(pvm_setminfo(pvm_getsbuf(), &mi), PvmOk);
    EXPECT_EQ(pvm_send(me, 14), PvmOk);
    EXPECT(pvm_recv(me, 14) > 0);
    EXPECT_EQ(pvm_getminfo(pvm_getrbuf(), &mi), PvmOk);
    EXPECT(mi.wid == -77 && mi.len == (int)sizeof big && mi.tag == 14);
    big[299999] = 0;
    EXPECT_EQ(pvm_unpackf("%*c", (int)sizeof big, big), PvmOk);
    EXPECT_EQ(big[299999], 5);
    rb = pvm_getrbuf();
    /* setminfo on a received buffer: pvm_bufinfo reports what was set */
    EXPECT_EQ(pvm_getminfo(rb, &mi), PvmOk);
    mi.tag = 31;
    mi.src = 0x40077;
    EXPECT_EQ(pvm_setminfo(rb, &mi), PvmOk);
    int tag, tid;
    EXPECT_EQ(pvm_bufinfo(rb, NULL, &tag, &tid), PvmOk);
    EXPECT(tag == 31 && tid == 0x40077);
    /* errors */
    EXPECT_EQ(pvm_getminfo(0, &mi), PvmBadParam);
    EXPECT_EQ(pvm_getminfo(-1, &mi), PvmBadParam);
    EXPECT_EQ(pvm_getminfo(999, &mi), PvmNoSuchBuf);
    EXPECT_EQ(pvm_setminfo(999, &mi), PvmNoSuchBuf);
#ifndef REAL_PVM
    EXPECT_EQ(pvm_getminfo(rb, NULL), PvmBadParam); /* real PVM crashes there */
    EXPECT_EQ(pvm_setminfo(rb, NULL), PvmBadParam);
#endif
}

static void messages_in_messages(void)
{
    int me = pvm_mytid();
    int ia[3] = {1, 2, 3}, x = 9;
    struct pvmminfo mi;
    int inner = pvm_mkbuf(PvmDataRaw);
    int old = pvm_setsbuf(inner);
    EXPECT_EQ(pvm_pkint(ia, 3, 1), PvmOk);
    EXPECT_EQ(pvm_getminfo(inner, &mi), PvmOk);
    mi.tag = 55;
    mi.wid = 66;
    EXPECT_EQ(pvm_setminfo(inner, &mi), PvmOk);
    EXPECT_EQ(pvm_setsbuf(old), inner);
    EXPECT(pvm_initsend(PvmDataRaw) > 0);
    EXPECT_EQ(pvm_pkint(&x, 1, 1), PvmOk);
    EXPECT_EQ(pvm_pkmesg(inner), PvmOk);
    EXPECT_EQ(pvm_pkmesgbody(inner), PvmOk);
    EXPECT_EQ(pvm_pkmesg(999), PvmNoSuchBuf);
    EXPECT_EQ(pvm_pkmesg(pvm_getsbuf()), PvmBadParam);
    loop(3);
    int rb = pvm_getrbuf();
    EXPECT_EQ(pvm_upkint(&x, 1, 1), PvmOk);
    EXPECT_EQ(x, 9);
    int nb = pvm_upkmesg();
    EXPECT(nb > 0);
    EXPECT_EQ(pvm_getrbuf(), rb);
    int bytes, tag, src;
    EXPECT_EQ(pvm_bufinfo(nb, &bytes, &tag, &src), PvmOk);
    EXPECT(bytes == 12 && tag == 55 && src == me);
    EXPECT_EQ(pvm_getminfo(nb, &mi), PvmOk);
    EXPECT(mi.wid == 66 && mi.ctx == 0 && mi.dst == 0);
    EXPECT_EQ(pvm_setrbuf(nb), rb);
    int y[3] = {0, 0, 0};
    EXPECT_EQ(pvm_upkint(y, 3, 1), PvmOk);
    EXPECT(y[0] == 1 && y[1] == 2 && y[2] == 3);
    EXPECT_EQ(pvm_setrbuf(rb), nb);
    /* the body alone is no whole message: PVM says PvmNoData; read with upk */
    EXPECT_EQ(pvm_upkmesg(), PvmNoData);
#ifndef REAL_PVM
    memset(y, 0, sizeof y); /* OURS: the failed pvm_upkmesg took nothing */
    EXPECT_EQ(pvm_upkint(y, 3, 1), PvmOk);
    EXPECT(y[0] == 1 && y[1] == 2 && y[2] == 3);
#endif
    EXPECT_EQ(pvm_upkmesg(), PvmNoData);
    pvm_freebuf(inner);
    pvm_freebuf(nb);
}

static volatile sig_atomic_t got_usr1;
static void on_usr1(int sig) { got_usr1 = sig; }

static void task_calls(void)
{
    int me = pvm_mytid();
    signal(SIGUSR1, on_usr1);
    EXPECT_EQ(pvm_sendsig(me, SIGUSR1), PvmOk);
    for (int i = 0; i < 1000 && !got_usr1; i++)
        usleep(1000);
    EXPECT_EQ(got_usr1, SIGUSR1);
    EXPECT_EQ(pvm_sendsig(me, 0), PvmOk);
#ifndef REAL_PVM /* OURS: PVM returns PvmOk for any tid or signal (its daemon acts later) */
    EXPECT_EQ(pvm_sendsig(0x40077, SIGUSR1), PvmBadParam);
    EXPECT_EQ(pvm_sendsig(me, 999), PvmBadParam);
    EXPECT_EQ(pvm_archcode(NULL), PvmBadParam);
#endif
    EXPECT_EQ(pvm_archcode(sizeof(long) == 8 ? "LINUX64" : "LINUX"), 0x408c41);
    EXPECT_EQ(pvm_archcode("SUN4"), PvmNotFound);
    struct timeval clk, delta, before, after;
    gettimeofday(&before, NULL);
    EXPECT_EQ(pvm_hostsync(pvm_tidtohost(me), &clk, &delta), PvmOk);
    gettimeofday(&after, NULL);
    EXPECT(clk.tv_sec >= before.tv_sec && clk.tv_sec <= after.tv_sec);
    EXPECT_EQ(pvm_hostsync(me, &clk, &delta), PvmOk);
    EXPECT_EQ(pvm_hostsync(0x12345678, &clk, &delta), PvmNoHost);
    unsetenv("PVM_EXPORT");
    EXPECT_EQ(pvm_export("FOO"), PvmOk);
    EXPECT(!strcmp(getenv("PVM_EXPORT"), "FOO"));
    EXPECT_EQ(pvm_export("BAR"), PvmOk);
    EXPECT_EQ(pvm_export("FOO"), PvmOk);
    EXPECT(!strcmp(getenv("PVM_EXPORT"), "FOO:BAR"));
    EXPECT_EQ(pvm_unexport("FOO"), PvmOk);
    EXPECT_EQ(pvm_unexport("ZZZ"), PvmOk);
    EXPECT(!strcmp(getenv("PVM_EXPORT"), "BAR"));
#ifndef REAL_PVM
    EXPECT_EQ(pvm_export(""), PvmBadParam);
    EXPECT_EQ(pvm_export("A:B"), PvmBadParam);
    EXPECT(!strcmp(getenv("PVM_EXPORT"), "BAR"));
#endif
    int *tids = NULL, n = -1;
    EXPECT_EQ(pvm_getnoresets(&tids, &n), PvmOk);
    EXPECT_EQ(n, 0);
    /* the last error's text, as pvm_perror's; a success leaves it */
    struct pvmminfo mi;
    EXPECT_EQ(pvm_getminfo(999, &mi), PvmNoSuchBuf);
    EXPECT(!strcmp(pvm_strerror(), "No such buffer"));
    EXPECT(pvm_initsend(PvmDataRaw) > 0);
    EXPECT(!strcmp(pvm_strerror(), "No such buffer"));
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    EXPECT(pvm_mytid() > 0);
    pvm_setopt(PvmAutoErr, 0); /* the bad calls here are meant */
    values();
    arrays();
    bad_formats();
    in_place();
    headers();
    messages_in_messages();
    task_calls();
    printf("pvm_packf: ok\n");
    pvm_exit();
    return 0;
}
