const ts=require("typescript"),fs=require("fs"),z=require("zlib");
const s=fs.readFileSync(process.argv[2],"utf8");
const sf=ts.createSourceFile("b.js",s,ts.ScriptTarget.Latest,true,ts.ScriptKind.JS);
const cuts=[];
const K=ts.SyntaxKind;
(function walk(n){
  if([K.StringLiteral,K.NoSubstitutionTemplateLiteral,K.TemplateHead,K.TemplateMiddle,K.TemplateTail].includes(n.kind)){
    const v=n.text; const st=n.getStart(sf), en=n.getEnd();
    const tail=(n.kind===K.TemplateHead||n.kind===K.TemplateMiddle)?2:1;
    if(v.length>=12 && / /.test(v) && !/^[A-Z]+ \//.test(v) && !/onRequest|onResponse|onError|Middleware must|Deeply-nested/.test(v)) cuts.push([st+1,en-tail,v]);
  }
  ts.forEachChild(n,walk);
})(sf);
cuts.sort((a,b)=>a[0]-b[0]);
let out="",at=0,bytes=0;for(const [a,b] of cuts){out+=s.slice(at,a);at=b;bytes+=b-a;}
out+=s.slice(at);
console.log("messages",cuts.length,"bytes",bytes,"of",s.length,"gz",z.gzipSync(s,{level:9}).length,"->",z.gzipSync(out,{level:9}).length);
if(process.argv[3]) for(const c of cuts) console.log(c[2].length, c[2].slice(0,110));
