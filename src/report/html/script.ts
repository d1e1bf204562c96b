// The page's only script: theme toggle and cell details. Inline, no dependencies, works from file://.
export const SCRIPT = `
(function(){
var root=document.documentElement,key='llm-bench-theme',btn=document.querySelector('.theme-toggle');
function label(){var t=root.getAttribute('data-theme');if(btn)btn.textContent=t==='dark'?'◐ Dark':t==='light'?'◑ Light':'◒ Auto';}
try{var saved=localStorage.getItem(key);if(saved)root.setAttribute('data-theme',saved);}catch(e){}
label();
if(btn)btn.addEventListener('click',function(){
  var t=root.getAttribute('data-theme'),next=t==='light'?'dark':t==='dark'?null:'light';
  if(next)root.setAttribute('data-theme',next);else root.removeAttribute('data-theme');
  try{if(next)localStorage.setItem(key,next);else localStorage.removeItem(key);}catch(e){}
  label();
});
var host=document.querySelector('.detail-host'),hint=document.querySelector('.detail-hint');
function show(cell){
  document.querySelectorAll('.hm-cell.selected').forEach(function(c){c.classList.remove('selected');});
  document.querySelectorAll('.cell-detail').forEach(function(d){d.hidden=true;});
  if(!cell)return;
  var d=document.getElementById('detail-'+cell.id);
  if(!d)return;
  cell.classList.add('selected');d.hidden=false;if(hint)hint.hidden=true;
  if(d.getBoundingClientRect().top>window.innerHeight)d.scrollIntoView({block:'nearest',behavior:'smooth'});
}
document.querySelectorAll('[data-cell]').forEach(function(cell){
  cell.addEventListener('click',function(){show(cell.classList.contains('selected')?null:cell);});
  cell.addEventListener('keydown',function(e){if(e.key==='Enter'||e.key===' '){e.preventDefault();show(cell);}});
});
document.querySelectorAll('.cell-detail .close').forEach(function(b){b.addEventListener('click',function(){show(null);if(hint)hint.hidden=false;});});
document.addEventListener('keydown',function(e){if(e.key==='Escape')show(null);});
// A table wider than its card scrolls sideways; a line under it says so (the edge shadows are the CSS's).
function cues(){document.querySelectorAll('.tbl-wrap,.hm-wrap').forEach(function(w){
  var over=w.scrollWidth>w.clientWidth+1,cue=w.nextElementSibling;
  if(!cue||!cue.classList.contains('scroll-cue')){if(!over)return;cue=document.createElement('p');cue.className='scroll-cue';w.parentNode.insertBefore(cue,w.nextSibling);}
  var t=w.querySelector('table'),n=t&&t.rows[0]?t.rows[0].cells.length:0;
  cue.textContent='Wider than the page: scroll it sideways'+(n?' for all '+n+' columns':'')+' →';
  cue.hidden=!over;});}
cues();window.addEventListener('resize',cues);
document.querySelectorAll('a[data-goto]').forEach(function(a){a.addEventListener('click',function(e){
  var c=document.getElementById(a.getAttribute('data-goto'));if(c){e.preventDefault();c.scrollIntoView({block:'center'});show(c);c.focus();}
});});
})();
`;
