/* Ring: ITER iterations in which every rank sends SIZE bytes to rank + 1
 * and receives from rank - 1 (MPI_Isend, MPI_Irecv, MPI_Waitall). Prints,
 * per rank, the point-to-point messages and bytes it sent. */
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
    char *out = calloc((size_t)size, 1), *in = calloc((size_t)size, 1);
    long msgs = 0, bytes = 0;
    for (int i = 0; i < iters; i++) {
        MPI_Request r[2];
        MPI_Irecv(in, size, MPI_BYTE, (me + n - 1) % n, i, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(out, size, MPI_BYTE, (me + 1) % n, i, MPI_COMM_WORLD, &r[1]);
        msgs++, bytes += size;
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    }
    printf("tasknet-mpi rank=%d sent_messages=%ld sent_bytes=%ld\n", me, msgs, bytes);
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
