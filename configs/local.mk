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
	%D%/data/ib-2switch.dot \
	%D%/data/ib-2switch.fdbs \
	%D%/data/ib-2switch.ibnetdiscover \
	%D%/data/ib-fattree.dot \
	%D%/data/ib-fattree.ibnetdiscover \
	%D%/data/ib-fattree.lfts \
	%D%/data/vef-example.vef \
	%D%/data/dag-example.dot \
	%D%/data/flow-list-example.csv \
	%D%/data/mpi-ring.otf2 \
	%D%/data/mpi-ring.def \
	%D%/data/mpi-cg16.otf2 \
	%D%/data/mpi-cg16.def
# the OTF2 archive's per-rank files (mpi-ring.otf2 is its anchor)
tasknetmpiringdir = $(pkgdatadir)/data/mpi-ring
dist_tasknetmpiring_DATA = \
	%D%/data/mpi-ring/0.def %D%/data/mpi-ring/0.evt %D%/data/mpi-ring/1.def %D%/data/mpi-ring/1.evt \
	%D%/data/mpi-ring/2.def %D%/data/mpi-ring/2.evt %D%/data/mpi-ring/3.def %D%/data/mpi-ring/3.evt

# the CG program traced at 16 ranks (configs/examples/mpi-cg-fabrics.xml)
tasknetmpicgdir = $(pkgdatadir)/data/mpi-cg16
dist_tasknetmpicg_DATA = \
	%D%/data/mpi-cg16/0.def %D%/data/mpi-cg16/0.evt %D%/data/mpi-cg16/1.def %D%/data/mpi-cg16/1.evt \
	%D%/data/mpi-cg16/2.def %D%/data/mpi-cg16/2.evt %D%/data/mpi-cg16/3.def %D%/data/mpi-cg16/3.evt \
	%D%/data/mpi-cg16/4.def %D%/data/mpi-cg16/4.evt %D%/data/mpi-cg16/5.def %D%/data/mpi-cg16/5.evt \
	%D%/data/mpi-cg16/6.def %D%/data/mpi-cg16/6.evt %D%/data/mpi-cg16/7.def %D%/data/mpi-cg16/7.evt \
	%D%/data/mpi-cg16/8.def %D%/data/mpi-cg16/8.evt %D%/data/mpi-cg16/9.def %D%/data/mpi-cg16/9.evt \
	%D%/data/mpi-cg16/10.def %D%/data/mpi-cg16/10.evt %D%/data/mpi-cg16/11.def %D%/data/mpi-cg16/11.evt \
	%D%/data/mpi-cg16/12.def %D%/data/mpi-cg16/12.evt %D%/data/mpi-cg16/13.def %D%/data/mpi-cg16/13.evt \
	%D%/data/mpi-cg16/14.def %D%/data/mpi-cg16/14.evt %D%/data/mpi-cg16/15.def %D%/data/mpi-cg16/15.evt
EXTRA_DIST += scripts/resnet50-layers.sh
