# Fabrics: the net_ops contract, its registry and the plugins.
libtasknet_a_SOURCES += \
	%D%/network.c %D%/network.h \
	%D%/host_nic.c %D%/host_nic.h \
	%D%/port.c %D%/port.h \
	%D%/transport.c %D%/transport.h \
	%D%/tp_tcp.c \
	%D%/tp_dctcp.c \
	%D%/tp_dcqcn.c \
	%D%/tp_hpcc.c \
	%D%/net_ideal.c \
	%D%/net_switch.c \
	%D%/net_spinet.c %D%/net_spinet.h \
	%D%/spinet_topology.c %D%/spinet_topology.h \
	%D%/swnet.c %D%/swnet.h \
	%D%/iqrouter.c %D%/iqrouter.h \
	%D%/net_torus.c \
	%D%/net_fattree.c \
	%D%/net_leafspine.c \
	%D%/net_dragonfly.c \
	%D%/topo.c %D%/topo.h \
	%D%/topo_torus.c \
	%D%/topo_fattree.c \
	%D%/topo_fattree3.c \
	%D%/topo_leafspine.c \
	%D%/topo_dragonfly.c \
	%D%/topo_graph.c \
	%D%/topo_export.c \
	%D%/topo_ibimport.c \
	%D%/topo_sub.c \
	%D%/topo_fail.c \
	%D%/net_graph.c
