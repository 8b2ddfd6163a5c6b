/* SPINet (networks/net_spinet.c): its parameters, for the tests and tools
 * that build an instance without a configuration. The application never
 * needs this header: it sets the parameters through the fabric's rows. */
#ifndef TASKNET_NET_SPINET_H
#define TASKNET_NET_SPINET_H

#include <stdint.h>

#include "network.h"

extern const net_ops net_spinet_ops; /* network.type = "spinet" */

typedef enum spn_recovery { SPN_FAST_NACK = 0, SPN_NACK, SPN_ACK, SPN_SLOTTED } spn_recovery;

/* SPINet's own parameters (rows in net_spinet.c) and what resolve_phy derives. */
typedef struct spn_params {
    uint32_t extra_stages;     /* stages beyond log2(N) */
    int64_t switching_time_ps; /* t_sw per stage */
    int64_t reaction_time_ps;  /* NACK/ACK generation */
    double link_length_m;      /* fibre length node<->fabric, 5 ns/m */
    uint64_t packet_bytes;     /* maximum packet payload, bytes */
    int recovery;              /* enum spn_recovery */
    int64_t slot_ps;           /* slotted protocol slot length */
    int64_t ack_timeout_ps;    /* ACK protocol timeout (0 = derived) */
    uint64_t buffer_bytes;     /* edge FIFO capacity (0 = unbounded) */
    /* resolved from the physical layer (resolve_phy); without it: serial,
     * error-free, energy not modelled */
    int phy_resolved;              /* 1 once the fields below hold the phy's values */
    uint32_t wavelengths;          /* lanes a packet is striped over, each at B / W (0 or 1: serial) */
    double bit_error_rate;         /* per-bit error probability on a path */
    double energy_per_bit_j;       /* per emitted bit that reaches the receiver, J */
    double energy_edge_per_bit_j;  /* per bit of a dropped try: laser and transmitting SerDes, J */
    double energy_stage_per_bit_j; /* per bit of a dropped try and stage it crossed: the SOA gate, J */
} spn_params;

#endif
