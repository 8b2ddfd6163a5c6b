# Schema and shipped configurations.
dist_pkgdata_DATA += %D%/tasknet.rng
EXTRA_DIST += %D%/paper %D%/examples
