bad () 
{ 
    local v=$1;
    shift;
    for r in one two;
    do
        local name=b_${v}_$r;
        $r $name actor_rollout_ref.model.path=$B/$v trainer.save_freq=-1 "$@" > /dev/null;
        local rc=$?;
        local last=$(grep -v '^\s*$' $W/$name.log | tail -n 3 | cut -c1-400);
        local sig=$(grep -aiE "segmentation|abort|core dump|terminate called|SIGBUS|bus error|signal [0-9]" $W/$name.log | head -2);
        echo "== $v $r exit $rc";
        echo "$last";
        [ -n "$sig" ] && echo "!! SIGNAL/CRASH: $sig";
    done
}
