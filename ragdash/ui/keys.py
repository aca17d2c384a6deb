"""Names of the plain ``st.session_state`` keys that outlive a page switch.

With Streamlit's ``pages/`` folder a widget on one page is a different widget from its twin on
another, and Streamlit drops a widget's own key when the page that drew it is left. So every
value that must survive a page switch lives under one of these plain keys; widgets read from
and write to them through :func:`ragdash.ui.widgets.bind`.
"""

LANG = "rd_lang"                  # "en" | "ja"
OWNER = "rd_owner"                # random id of this browser session (owner of its jobs)
USER = "rd_user"                  # the signed-in user (ragdash.ui.auth), None without sign-in
OPENED_RUNS = "rd_opened_runs"    # ids of runs this session opened by a ?run= link
API_KEY = "rd_api_key"            # the embeddings API key: session only, never written anywhere
DATASET = "rd_dataset"            # the current ragdash.Dataset (or absent)
DATASET_SOURCE = "rd_dataset_source"  # how it was loaded: "sample:<name>" | "upload" | "run"
DATASET_FP = "rd_dataset_fp"      # its fingerprint (computed once per load)
VALIDATION = "rd_validation"      # ValidationReport of the current dataset
RUN_ID = "rd_run_id"              # the saved run shown on the Results page
COMPARE_IDS = "rd_compare_ids"    # saved runs chosen on the Compare page
EXTERNAL_RUNS = "rd_external_runs"  # TREC runs uploaded on the Compare page: name -> Ranking
RUN_PARAM = "rd_run_param"        # the ?run=<id> value already opened in this session
LINK_MISSING = "rd_link_missing"  # (id, sentence) of a ?run=<id> that could not be opened
SEEN_JOBS = "rd_seen_jobs"        # job ids whose finished run was already made current
DRILL_QUERY = "rd_drill_query"    # query id open in the drill-down
DRILL_RUN = "rd_drill_run"        # the run the Results page's drill-down was opened on
LANG_PARAM = "rd_lang_param"      # the ?lang= value already applied in this session
# Judge page
JUDGE_RATER = "rd_judge_rater"    # the rater's name in this browser session
JUDGE_QUEUE = "rd_judge_queue"    # which pairs to judge: "pool" | "disagree" | "sample"
JUDGE_SKIPPED = "rd_judge_skipped"  # pairs skipped in this session
JUDGE_HISTORY = "rd_judge_history"  # pairs labeled in this session, newest last (for Back)
JUDGE_BACK = "rd_judge_back"      # the pair Back returned to, shown until it is labeled again
# Run page settings (each bound to its widget)
RETRIEVER = "rd_retriever"
PRESET = "rd_preset"
MODEL = "rd_model"
BASE_URL = "rd_base_url"
API_VERSION = "rd_api_version"
DIMENSIONS = "rd_dimensions"
BATCH_SIZE = "rd_batch_size"          # an OpenAI-compatible server's
LOCAL_BATCH_SIZE = "rd_local_batch_size"  # a local model's (their defaults differ)
CONCURRENCY = "rd_concurrency"
TIMEOUT = "rd_timeout"            # seconds one request to the server may take
KMAX = "rd_kmax"
QUERY_LIMIT = "rd_query_limit"
LOCAL_MODEL = "rd_local_model"
BM25_K1 = "rd_bm25_k1"
BM25_B = "rd_bm25_b"
RUN_NAME = "rd_run_name"
# Results page view settings
METRICS = "rd_metrics"
K_VIEW = "rd_k_view"
DROP_NO_RELEVANT = "rd_drop_no_relevant"  # shared with the Compare page's toggle
HIST_FAMILY = "rd_hist_family"    # the histogram's metric family
# Compare page view settings
COMPARE_FAMILY = "rd_compare_family"
COMPARE_A = "rd_compare_a"        # run names (as shown) on the scatter's axes
COMPARE_B = "rd_compare_b"
# Cost page
CURRENCY = "rd_currency"          # "USD" | "JPY" for the providers chart
COST_QUALITY_DATASET = "rd_cost_quality_dataset"  # dataset fingerprint of cost vs quality
UPLOADS = "rd_uploads"            # the last uploaded files [(name, bytes)], to reload with a
#                                   different column mapping after leaving the page
LOAD_JOB = "rd_load_job"          # (job id, files, mapping, split) of an upload being read
LOAD_FAILED = "rd_load_failed"    # (job, files, mapping, split) of the last upload that failed
MAPPING = "rd_mapping"            # column overrides {kind: {role: column | None}}
