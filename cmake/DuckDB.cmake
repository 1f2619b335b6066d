# verlpp_find_duckdb(): finds DuckDB's C library for verlpp's Parquet support where Apache Arrow is
# absent: duckdb.h and libduckdb.so under VERLPP_DUCKDB_DIR (include/, lib/), which scripts/setup
# fills (.deps/duckdb by default). On success defines the IMPORTED target verlpp_duckdb and sets
# VERLPP_DUCKDB_FOUND (ON/OFF) in the caller.
set(VERLPP_DUCKDB_DIR "${CMAKE_SOURCE_DIR}/.deps/duckdb" CACHE PATH
    "Folder with DuckDB's include/duckdb.h and lib/libduckdb.so (scripts/setup installs them)")

function(verlpp_find_duckdb)
  set(VERLPP_DUCKDB_FOUND OFF PARENT_SCOPE)
  find_path(VERLPP_DUCKDB_INCLUDE_DIR duckdb.h PATHS "${VERLPP_DUCKDB_DIR}/include" NO_DEFAULT_PATH)
  find_library(VERLPP_DUCKDB_LIBRARY duckdb PATHS "${VERLPP_DUCKDB_DIR}/lib" NO_DEFAULT_PATH)
  if(NOT VERLPP_DUCKDB_INCLUDE_DIR OR NOT VERLPP_DUCKDB_LIBRARY)
    return()
  endif()
  add_library(verlpp_duckdb SHARED IMPORTED GLOBAL)
  set_target_properties(verlpp_duckdb PROPERTIES
    IMPORTED_LOCATION "${VERLPP_DUCKDB_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${VERLPP_DUCKDB_INCLUDE_DIR}")
  set(VERLPP_DUCKDB_FOUND ON PARENT_SCOPE)
endfunction()
