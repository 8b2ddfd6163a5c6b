# The MPI tracer (issue 20): libtasknet-mpitrace.so, loaded with LD_PRELOAD
# under mpirun, writes OTF2 through PMPI. Built when configure found MPI
# (mpicc) and OTF2; installed in $(pkglibdir).
EXTRA_DIST += %D%/mpitrace.c
if HAVE_MPI
if HAVE_OTF2
MPITRACE_SRC = $(srcdir)/%D%/mpitrace.c $(srcdir)/jobs/mpitrace_write.c $(srcdir)/src/log.c
libtasknet-mpitrace.so: $(MPITRACE_SRC) $(srcdir)/jobs/mpitrace.h $(srcdir)/src/log.h
	$(AM_V_CC)$(MPICC) -std=gnu11 -O2 -g -shared -fPIC -I$(srcdir)/jobs -I$(srcdir)/src $(DEFS) $(OTF2_CFLAGS) \
	    -o $@ $(MPITRACE_SRC) $(OTF2_LIBS)
all-local: libtasknet-mpitrace.so
install-exec-local: libtasknet-mpitrace.so
	$(MKDIR_P) $(DESTDIR)$(pkglibdir)
	$(INSTALL_PROGRAM) libtasknet-mpitrace.so $(DESTDIR)$(pkglibdir)/libtasknet-mpitrace.so
uninstall-local:
	rm -f $(DESTDIR)$(pkglibdir)/libtasknet-mpitrace.so
CLEANFILES += libtasknet-mpitrace.so
endif
endif
