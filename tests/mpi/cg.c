/* A small conjugate-gradient solver as NAS CG runs one: A x = b for the
 * 2-D Poisson matrix (5-point stencil) on an NX x NY grid, rows split in
 * blocks of NY / P grid rows per rank; each iteration a sparse
 * matrix-vector product after a halo exchange with the neighbour ranks
 * (MPI_Isend / MPI_Irecv / MPI_Waitall of NX doubles) and two
 * MPI_Allreduce dot products. Prints, per rank, the point-to-point
 * messages and bytes it sent, and the final residual. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, np, nx, ny; /* ny: own grid rows */
static long msgs, bytes;

/* y = A p (p with halo rows p[-nx..-1] and p[ny nx .. (ny+1) nx - 1]) */
static void matvec(double *p, double *y)
{
    MPI_Request r[4];
    int k = 0;
    if (me > 0) {
        MPI_Irecv(p - nx, nx, MPI_DOUBLE, me - 1, 1, MPI_COMM_WORLD, &r[k++]);
        MPI_Isend(p, nx, MPI_DOUBLE, me - 1, 2, MPI_COMM_WORLD, &r[k++]);
        msgs++, bytes += nx * (long)sizeof(double);
    }
    if (me < np - 1) {
        MPI_Irecv(p + ny * nx, nx, MPI_DOUBLE, me + 1, 2, MPI_COMM_WORLD, &r[k++]);
        MPI_Isend(p + (ny - 1) * nx, nx, MPI_DOUBLE, me + 1, 1, MPI_COMM_WORLD, &r[k++]);
        msgs++, bytes += nx * (long)sizeof(double);
    }
    MPI_Waitall(k, r, MPI_STATUSES_IGNORE);
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            int c = j * nx + i;
            double v = 4 * p[c];
            if (i > 0) v -= p[c - 1];
            if (i < nx - 1) v -= p[c + 1];
            if (j > 0 || me > 0) v -= p[c - nx];
            if (j < ny - 1 || me < np - 1) v -= p[c + nx];
            y[c] = v;
        }
}

static double dot(const double *a, const double *b)
{
    double s = 0, t;
    for (int c = 0; c < nx * ny; c++)
        s += a[c] * b[c];
    MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return t;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    nx = argc > 1 ? atoi(argv[1]) : 64;
    ny = argc > 2 ? atoi(argv[2]) : 16;
    int iters = argc > 3 ? atoi(argv[3]) : 25;
    size_t n = (size_t)nx * ny;
    double *x = calloc(n, sizeof *x), *r = calloc(n, sizeof *r), *q = calloc(n, sizeof *q);
    double *pbuf = calloc(n + 2 * (size_t)nx, sizeof *pbuf), *p = pbuf + nx;
    for (size_t c = 0; c < n; c++)
        r[c] = p[c] = 1.0; /* b = 1, x0 = 0 */
    double rho = dot(r, r);
    for (int it = 0; it < iters; it++) {
        matvec(p, q);
        double alpha = rho / dot(p, q);
        for (size_t c = 0; c < n; c++) {
            x[c] += alpha * p[c];
            r[c] -= alpha * q[c];
        }
        double rho2 = dot(r, r);
        for (size_t c = 0; c < n; c++)
            p[c] = r[c] + rho2 / rho * p[c];
        rho = rho2;
    }
    printf("tasknet-mpi rank=%d sent_messages=%ld sent_bytes=%ld residual=%.3e\n", me, msgs, bytes, sqrt(rho));
    free(x), free(r), free(q), free(pbuf);
    MPI_Finalize();
    return 0;
}
