/* Internals shared by the copy engine's files. A section may temporarily hold
 * more dimensions than DMSG_MAX_DIMS: when two sides of different shapes are
 * refined to a common shape, each side's dimensions may be split, so the
 * work arrays are sized for the worst case of both sides' splits. */
#ifndef DMSG_XFER_IMPL_H
#define DMSG_XFER_IMPL_H

#include "dmsg/xfer/xfer.h"

#define XFER_WORK_DIMS (2 * DMSG_MAX_DIMS)

/* A line block of a transpose of 8-byte elements (copy_regblk.c): 8 x 8
 * elements, the destination contiguous along i, the source along j:
 * d + i*8 + j*dsj receives s + i*ssi + j*8. */
typedef void (*xfer_blk8_fn)(char *d, ptrdiff_t dsj, const char *s, ptrdiff_t ssi);

/* The streaming line-block kernel for the asked kernel (DMSG_XFER_KERNEL_*,
 * clamped to what the CPU has); *got (if not NULL) says which it is. NULL
 * where there are no streaming stores (not x86-64). Every row of the block
 * must start on a 32-byte boundary; the caller ends the copy with an sfence. */
xfer_blk8_fn dmsg_xfer_regblk8(int kernel, int *got);

/* The calibration's streaming decision for class c from median times at
 * the DMSG_XFER_STREAM_SIZES plane sizes (copy_tune.c): on from the
 * smallest size where streaming wins by 5% and keeps winning at every
 * larger size, the threshold half that plane (the geometric middle to the
 * next smaller size); else off. */
dmsg_xfer_stream dmsg_xfer_stream_choose(int c, const double *streamed, const double *plain);

/* One side of a section with unit dimensions removed. */
typedef struct xfer_side {
    int nd;
    size_t count[DMSG_MAX_DIMS];
    ptrdiff_t stride[DMSG_MAX_DIMS];
} xfer_side;

/* A two-sided section under construction (same meaning as dmsg_sect). */
typedef struct xfer_work {
    int nd;
    size_t elem;
    size_t count[XFER_WORK_DIMS];
    ptrdiff_t sstride[XFER_WORK_DIMS];
    ptrdiff_t dstride[XFER_WORK_DIMS];
} xfer_work;

/* Copies the dimensions of l with count != 1 into *out; returns 0 if some
 * count is 0 (empty layout), else 1. */
int dmsg_xfer_squeeze(xfer_side *out, const dmsg_layout *l);

/* Merges single-side dimensions that are contiguous with each other, which
 * keeps the element order: fewer, longer dimensions for the walker. */
void dmsg_xfer_side_fold(xfer_side *s);

/* Folds a two-sided section in place: merges dimension d+1 into d when it
 * continues d on both sides, then folds the innermost dimension into elem
 * when it is contiguous on both sides. */
void dmsg_xfer_fold(xfer_work *w);

/* Builds a common refinement of two squeezed sides with equal totals: each
 * dimension is split where the other side's dimension boundaries fall. Returns
 * 0 when the boundaries do not line up (a count that does not divide). */
int dmsg_xfer_refine(xfer_work *w, const xfer_side *d, const xfer_side *s, size_t elem);

/* Odometer over one side, row by row (dimension 0 fastest): base[k] is the
 * byte offset of the element whose indices above k are current and whose
 * indices up to k are zero. Start with {.l = side}. Used by the generic
 * copy walker and the run walker (runs.c). */
typedef struct xfer_cursor {
    const xfer_side *l;
    size_t idx[DMSG_MAX_DIMS];
    ptrdiff_t base[DMSG_MAX_DIMS];
} xfer_cursor;

/* Byte offset of the current element. */
ptrdiff_t dmsg_xfer_cursor_off(const xfer_cursor *c);

/* Moves n elements on within the current row (n <= what is left of it),
 * to the next row when the row ends. */
void dmsg_xfer_cursor_advance(xfer_cursor *c, size_t n);

/* Copies w into a dmsg_sect; returns 0 if it has too many dimensions. */
int dmsg_xfer_work_to_sect(dmsg_sect *out, const xfer_work *w);

#endif
