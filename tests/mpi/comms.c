/* Communicators other than MPI_COMM_WORLD: world is split by rank parity
 * into two halves (MPI_Comm_split, key = world rank, so half rank i is
 * world rank 2 i + parity) and duplicated (MPI_Comm_dup). ITER iterations,
 * each: an 8-byte allreduce inside each half; a ring inside each half
 * (MPI_Isend of SIZE bytes to half rank + 1, MPI_Irecv from half rank - 1,
 * MPI_Waitall; ranks are the half's); an 8-byte reduce to rank 1 of each
 * half (world rank 2 or 3: a root relative to the communicator); a bcast
 * of 8 bytes from rank 1 of the dup. Then both communicators
 * are freed. Prints, per rank, the point-to-point messages and bytes it
 * sent, and the collectives it joined. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int iters = argc > 1 ? atoi(argv[1]) : 10, size = argc > 2 ? atoi(argv[2]) : 1000;
    MPI_Comm half, dup;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    int hr, hn;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hn);
    char *out = calloc((size_t)size, 1), *in = calloc((size_t)size, 1);
    long msgs = 0, bytes = 0, colls = 0;
    for (int i = 0; i < iters; i++) {
        double x = me + i, sum = 0;
        MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, half);
        colls++;
        MPI_Request r[2];
        MPI_Irecv(in, size, MPI_BYTE, (hr + hn - 1) % hn, i, half, &r[0]);
        MPI_Isend(out, size, MPI_BYTE, (hr + 1) % hn, i, half, &r[1]);
        msgs++, bytes += size;
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        double v = sum, w = 0;
        MPI_Reduce(&v, &w, 1, MPI_DOUBLE, MPI_MAX, 1 % hn, half);
        colls++;
        MPI_Bcast(&v, 1, MPI_DOUBLE, 1 % n, dup);
        colls++;
    }
    MPI_Comm_free(&dup);
    MPI_Comm_free(&half);
    printf("tasknet-mpi rank=%d sent_messages=%ld sent_bytes=%ld collectives=%ld\n", me, msgs, bytes, colls);
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
