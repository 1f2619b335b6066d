# cairo (Debian libcairo2-dev), optional: the geo3k stand-in's diagrams (data) and the end-of-run
# PNG plot (trainer). When found, defines the IMPORTED target verlpp_cairo and sets
# VERLPP_CAIRO_FOUND; without it both features are clear errors or skipped.
find_path(VERLPP_CAIRO_INCLUDE_DIR cairo.h PATH_SUFFIXES cairo)
find_library(VERLPP_CAIRO_LIBRARY cairo)
if(VERLPP_CAIRO_INCLUDE_DIR AND VERLPP_CAIRO_LIBRARY)
  set(VERLPP_CAIRO_FOUND ON)
  add_library(verlpp_cairo UNKNOWN IMPORTED GLOBAL)
  set_target_properties(verlpp_cairo PROPERTIES
    IMPORTED_LOCATION "${VERLPP_CAIRO_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${VERLPP_CAIRO_INCLUDE_DIR}")
else()
  set(VERLPP_CAIRO_FOUND OFF)
  message(STATUS "cairo not found: no geo3k stand-in diagrams, no end-of-run PNG plot")
endif()
