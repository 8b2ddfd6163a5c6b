# Fabrics: the net_ops contract, its registry and the plugins.
libtasknet_a_SOURCES += \
	%D%/network.c %D%/network.h \
	%D%/net_ideal.c \
	%D%/net_switch.c
