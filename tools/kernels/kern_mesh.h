/* kern_mesh.h - the FEM kernel's mesh, partition and exchange lists (kern_mesh.c). */
#ifndef DMSG_KERN_MESH_H
#define DMSG_KERN_MESH_H

#include "kern.h"

/* The whole mesh, the same on every PE. */
typedef struct kern_mesh {
    size_t npts, ntets, edgecut;
    double *xyz;  /* 3 coordinates per point */
    size_t *xadj; /* CSR: the points coupled to point p are adj[xadj[p] .. xadj[p+1]) */
    size_t *adj;  /* sorted by point number */
    int *part;    /* owner PE of every point (METIS_PartGraphKway) */
} kern_mesh;

/* My part: positions 0 .. nown-1 of my vectors are my points, nown .. len-1
 * my ghosts; both in global point order. */
typedef struct kern_local {
    size_t nown, nghost, len, nnz;
    size_t *own, *ghost; /* global numbers */
    size_t *xadj, *col;  /* my matrix rows; columns are local positions */
    double *w, *diag;    /* off-diagonal couplings and diagonal */
    kern_nbr *nbr;
    int nnbr;
} kern_local;

/* Builds the m^3-point mesh, partitions it over np PEs and fills my part. */
void kern_mesh_build(kern_mesh *g, kern_local *l, size_t m, int me, int np);
/* The coupling of two points (the same function in every computation). */
double kern_mesh_weight(const kern_mesh *g, size_t p, size_t q);
void kern_mesh_free_global(kern_mesh *g);

#endif
