// BPE Lab: components/tokenize_view/mail.js and the modules it imports, bundled by esbuild (npm run build).
var e=globalThis[Symbol.for("bpe-lab.tokenize-view")]??={box:{},listeners:new Set};function i({data:o,setStateValue:t}){e.setState=t,e.box.mail=o;for(let l of e.listeners)l(o)}export{i as default};
