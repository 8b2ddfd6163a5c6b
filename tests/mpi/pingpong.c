/* Ping-pong between ranks 0 and 1 (the others only take part in the final
 * barrier): ITER round trips of SIZE bytes with MPI_Send / MPI_Recv.
 * Prints, per rank, the point-to-point messages and bytes it sent. */
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
    char *buf = calloc((size_t)size, 1);
    long msgs = 0, bytes = 0;
    for (int i = 0; i < iters && n >= 2; i++) {
        if (me == 0) {
            MPI_Send(buf, size, MPI_BYTE, 1, 5, MPI_COMM_WORLD);
            msgs++, bytes += size;
            MPI_Recv(buf, size, MPI_BYTE, 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (me == 1) {
            MPI_Recv(buf, size, MPI_BYTE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, size, MPI_BYTE, 0, 6, MPI_COMM_WORLD);
            msgs++, bytes += size;
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    printf("tasknet-mpi rank=%d sent_messages=%ld sent_bytes=%ld\n", me, msgs, bytes);
    free(buf);
    MPI_Finalize();
    return 0;
}
