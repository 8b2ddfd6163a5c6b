# Schema and shipped configurations.
dist_pkgdata_DATA += %D%/tasknet.rng
EXTRA_DIST += %D%/paper %D%/examples %D%/vef %D%/dag
# Data files configurations name without a path (src/datadir.h): installed
# in $(pkgdatadir)/data, found in the source tree before installation.
tasknetdatadir = $(pkgdatadir)/data
dist_tasknetdata_DATA = \
	%D%/data/README.md \
	%D%/data/homa_w1_cdf.csv \
	%D%/data/homa_w2_cdf.csv \
	%D%/data/homa_w3_cdf.csv \
	%D%/data/homa_w4_cdf.csv \
	%D%/data/homa_w5_cdf.csv \
	%D%/data/homasim_fb_cachefollower_intracluster_cdf.csv \
	%D%/data/homasim_fb_webserver_intracluster_cdf.csv \
	%D%/data/hpcc_alistorage2019_cdf.csv \
	%D%/data/pfabric_datamining_vl2_snkas_cdf.csv \
	%D%/data/pfabric_websearch_snkas_cdf.csv \
	%D%/data/resnet50-layers.csv \
	%D%/data/fabric.dot \
	%D%/data/vef-example.vef \
	%D%/data/dag-example.dot \
	%D%/data/flow-list-example.csv \
	%D%/data/mpi-ring.otf2 \
	%D%/data/mpi-ring.def
# the OTF2 archive's per-rank files (mpi-ring.otf2 is its anchor)
tasknetmpiringdir = $(pkgdatadir)/data/mpi-ring
dist_tasknetmpiring_DATA = \
	%D%/data/mpi-ring/0.def %D%/data/mpi-ring/0.evt %D%/data/mpi-ring/1.def %D%/data/mpi-ring/1.evt \
	%D%/data/mpi-ring/2.def %D%/data/mpi-ring/2.evt %D%/data/mpi-ring/3.def %D%/data/mpi-ring/3.evt
EXTRA_DIST += scripts/resnet50-layers.sh
