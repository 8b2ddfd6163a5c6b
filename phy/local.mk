# Physical layer: pure functions (link timing, optical budget, energy).
libtasknet_a_SOURCES += \
	%D%/link.c %D%/link.h \
	%D%/optical.c %D%/optical.h \
	%D%/energy.c %D%/energy.h \
	%D%/phy_params.c %D%/phy_params.h
