/**
 * The words ten years of generated chats are made of (bench/scale/history.ts): topics a person
 * brings up day after day, in English and in Chinese, each with things, actions and qualities,
 * plus the people, places and numbers that make most of a real history's long tail. All written
 * for this benchmark; none of it is taken from a data set.
 */

export interface Topic {
  name: string;
  en: { nouns: string[]; verbs: string[]; adjs: string[] };
  zh: { nouns: string[]; verbs: string[]; adjs: string[] };
  /** Tools a turn on this topic calls, with the argument its query goes in. */
  tools: string[];
}

const w = (s: string) => s.trim().split(/\s+/);

export const TOPICS: Topic[] = [
  {
    name: "garden",
    en: {
      nouns: w(
        "tomato seedling raised-bed compost mulch trellis zucchini basil lettuce aphid watering-can greenhouse hedge rosebush shovel fertiliser pumpkin radish soil harvest",
      ),
      verbs: w("plant prune water repot harvest weed transplant sow fertilise cover"),
      adjs: w("leggy wilted sunny shady frost-hardy overgrown sandy fragrant"),
    },
    zh: {
      nouns: w(
        "番茄 幼苗 花盆 堆肥 藤架 西葫芦 罗勒 生菜 蚜虫 浇水壶 温室 篱笆 月季 铁锹 肥料 南瓜 萝卜 土壤 收成 菜园",
      ),
      verbs: w("种 修剪 浇水 换盆 采摘 除草 移栽 播种 施肥 遮盖"),
      adjs: w("发黄 枯萎 向阳 背阴 耐寒 茂盛 松软 芳香"),
    },
    tools: ["notes_add", "schedule_create", "fetch_url"],
  },
  {
    name: "cooking",
    en: {
      nouns: w(
        "sourdough starter dumpling broth skillet oven marinade noodle curry pancake batter recipe spice cumin garlic ginger scallion casserole dough pantry",
      ),
      verbs: w("bake simmer knead marinate roast fry steam season chop braise"),
      adjs: w("crispy tender salty bland spicy fluffy sticky savoury"),
    },
    zh: {
      nouns: w(
        "酵头 饺子 高汤 平底锅 烤箱 腌料 面条 咖喱 煎饼 面糊 菜谱 香料 孜然 大蒜 生姜 葱花 砂锅 面团 橱柜 红烧肉",
      ),
      verbs: w("烤 炖 揉 腌 烘 炸 蒸 调味 切 焖"),
      adjs: w("酥脆 软嫩 咸 清淡 辣 蓬松 黏 鲜美"),
    },
    tools: ["fetch_url", "notes_add", "files_read"],
  },
  {
    name: "travel",
    en: {
      nouns: w(
        "itinerary passport visa layover hostel ferry railpass luggage backpack museum guidebook terminal boarding-pass hike viewpoint campsite currency souvenir timetable reservation",
      ),
      verbs: w("book pack cancel reschedule explore board visit exchange photograph check-in"),
      adjs: w("delayed crowded scenic overnight remote affordable cosy breezy"),
    },
    zh: {
      nouns: w(
        "行程 护照 签证 转机 青旅 渡轮 通票 行李 背包 博物馆 攻略 航站楼 登机牌 徒步 观景台 营地 外币 纪念品 时刻表 预订",
      ),
      verbs: w("订 收拾 取消 改签 探索 登机 参观 兑换 拍照 入住"),
      adjs: w("延误 拥挤 风景优美 过夜 偏远 实惠 温馨 凉爽"),
    },
    tools: ["fetch_url", "calendar_add", "files_write"],
  },
  {
    name: "work",
    en: {
      nouns: w(
        "quarterly-report deadline spreadsheet roadmap standup invoice client proposal milestone budget slide-deck retrospective backlog contract stakeholder agenda minutes onboarding review sprint",
      ),
      verbs: w("draft review schedule summarise present negotiate estimate approve prioritise delegate"),
      adjs: w("urgent overdue tentative detailed confidential quarterly rough final"),
    },
    zh: {
      nouns: w(
        "季度报告 截止日期 表格 路线图 站会 发票 客户 方案 里程碑 预算 幻灯片 复盘 待办 合同 负责人 议程 纪要 入职 评审 迭代",
      ),
      verbs: w("起草 审阅 安排 总结 汇报 谈判 估算 批准 排优先级 分派"),
      adjs: w("紧急 逾期 暂定 详细 保密 季度 粗略 最终"),
    },
    tools: ["files_read", "files_write", "calendar_add", "notes_search"],
  },
  {
    name: "health",
    en: {
      nouns: w(
        "knee hamstring physio interval-run heart-rate stretch vitamin appointment dentist prescription sleep blood-pressure treadmill yoga-mat protein hydration blister posture checkup",
      ),
      verbs: w("stretch jog rest ice book measure track recover strengthen warm-up"),
      adjs: w("sore stiff swollen rested sluggish steady faster inflamed"),
    },
    zh: {
      nouns: w(
        "膝盖 腿筋 理疗 间歇跑 心率 拉伸 维生素 预约 牙医 处方 睡眠 血压 跑步机 瑜伽垫 蛋白质 补水 水泡 体态 体检 颈椎",
      ),
      verbs: w("拉伸 慢跑 休息 冰敷 挂号 测量 记录 恢复 加强 热身"),
      adjs: w("酸痛 僵硬 肿胀 精神 乏力 平稳 更快 发炎"),
    },
    tools: ["notes_add", "schedule_create", "calendar_add"],
  },
  {
    name: "money",
    en: {
      nouns: w(
        "mortgage savings pension dividend receipt tax-return subscription utility-bill allowance bank-transfer interest fund statement refund deposit loan expense ledger insurance premium",
      ),
      verbs: w("save transfer budget cancel compare refinance deduct claim invest reconcile"),
      adjs: w("monthly annual fixed variable cheaper pending refundable taxable"),
    },
    zh: {
      nouns: w(
        "房贷 存款 养老金 分红 收据 报税 订阅 水电费 零花钱 转账 利息 基金 账单 退款 押金 贷款 开销 账本 保险 保费",
      ),
      verbs: w("存 转 做预算 退订 比价 转贷 扣除 报销 投资 对账"),
      adjs: w("每月 每年 固定 浮动 更便宜 待处理 可退 应税"),
    },
    tools: ["files_read", "shell_run", "notes_search"],
  },
  {
    name: "home",
    en: {
      nouns: w(
        "boiler radiator gutter skirting-board drill ladder grout tile leak faucet thermostat insulation curtain-rail fuse shelf bracket paintbrush plaster sealant doorframe",
      ),
      verbs: w("fix drill paint seal replace sand insulate mount unclog measure"),
      adjs: w("leaky draughty cracked loose squeaky damp mouldy level"),
    },
    zh: {
      nouns: w(
        "锅炉 暖气片 雨水槽 踢脚线 电钻 梯子 填缝剂 瓷砖 漏水 水龙头 温控器 保温层 窗帘杆 保险丝 搁板 支架 刷子 石膏 密封胶 门框",
      ),
      verbs: w("修 钻孔 刷漆 密封 更换 打磨 保温 安装 疏通 测量"),
      adjs: w("漏水 透风 开裂 松动 吱吱响 潮湿 发霉 水平"),
    },
    tools: ["fetch_url", "notes_add", "files_grep"],
  },
  {
    name: "music",
    en: {
      nouns: w(
        "chord arpeggio metronome scale fingering capo ukulele cello rehearsal setlist playlist album vinyl amplifier tuning sheet-music recital choir melody tempo",
      ),
      verbs: w("practise tune rehearse record transpose strum compose memorise perform listen"),
      adjs: w("flat sharp syncopated mellow upbeat acoustic slow tricky"),
    },
    zh: {
      nouns: w(
        "和弦 琶音 节拍器 音阶 指法 变调夹 尤克里里 大提琴 排练 曲目单 歌单 专辑 黑胶 音箱 调音 乐谱 独奏会 合唱团 旋律 节奏",
      ),
      verbs: w("练习 调音 排练 录音 转调 扫弦 作曲 背谱 演出 听"),
      adjs: w("偏低 偏高 切分 柔和 轻快 原声 缓慢 棘手"),
    },
    tools: ["fetch_url", "files_read", "notes_add"],
  },
  {
    name: "reading",
    en: {
      nouns: w(
        "novel chapter memoir anthology bookmark library-card audiobook essay translation paperback footnote protagonist plot trilogy bookclub poetry biography manuscript index epilogue",
      ),
      verbs: w("read borrow finish annotate recommend reread skim quote return lend"),
      adjs: w("gripping slow-paced dense moving witty bleak dog-eared overdue"),
    },
    zh: {
      nouns: w(
        "小说 章节 回忆录 文集 书签 借书证 有声书 随笔 译本 平装本 脚注 主人公 情节 三部曲 读书会 诗集 传记 手稿 索引 后记",
      ),
      verbs: w("读 借 读完 批注 推荐 重读 略读 引用 归还 借给"),
      adjs: w("引人入胜 节奏慢 晦涩 感人 风趣 压抑 卷边 逾期"),
    },
    tools: ["fetch_url", "notes_search", "files_read"],
  },
  {
    name: "code",
    en: {
      nouns: w(
        "repository branch migration regex stacktrace dependency lockfile container endpoint query index benchmark unit-test linter refactor cronjob logfile config deploy webhook",
      ),
      verbs: w("debug refactor deploy migrate profile rollback lint merge rebase cache"),
      adjs: w("flaky slow deprecated nested idempotent verbose broken green"),
    },
    zh: {
      nouns: w(
        "仓库 分支 迁移 正则 堆栈 依赖 锁文件 容器 接口 查询 索引 基准测试 单元测试 代码检查 重构 定时任务 日志 配置 部署 回调",
      ),
      verbs: w("调试 重构 部署 迁移 剖析 回滚 检查 合并 变基 缓存"),
      adjs: w("不稳定 慢 过时 嵌套 幂等 冗长 坏了 通过"),
    },
    tools: ["shell_run", "files_grep", "files_read", "files_write"],
  },
  {
    name: "bike",
    en: {
      nouns: w(
        "derailleur chain tyre inner-tube saddle pannier brake-pad cassette spoke pump commute route helmet light puncture gear frame mudguard lock kickstand",
      ),
      verbs: w("oil patch adjust inflate true ride commute replace tighten clean"),
      adjs: w("rusty flat squeaky smooth hilly muddy quick worn"),
    },
    zh: {
      nouns: w(
        "变速器 链条 外胎 内胎 车座 驮包 刹车片 飞轮 辐条 打气筒 通勤 路线 头盔 车灯 扎胎 挡位 车架 挡泥板 车锁 脚撑",
      ),
      verbs: w("上油 补胎 调 打气 校正 骑 通勤 更换 拧紧 清洗"),
      adjs: w("生锈 没气 吱吱响 顺滑 多坡 泥泞 快 磨损"),
    },
    tools: ["fetch_url", "notes_add", "schedule_create"],
  },
  {
    name: "family",
    en: {
      nouns: w(
        "birthday anniversary reunion nephew niece grandparents wedding babysitter school-play parent-evening gift card picnic sleepover recital graduation photo-album homework playdate",
      ),
      verbs: w("celebrate invite wrap visit call organise pick-up drop-off congratulate surprise"),
      adjs: w("noisy lovely chaotic proud early late tiny grown-up"),
    },
    zh: {
      nouns: w(
        "生日 纪念日 聚会 外甥 侄女 爷爷奶奶 婚礼 保姆 汇演 家长会 礼物 贺卡 野餐 过夜 演奏会 毕业典礼 相册 作业 玩伴 年夜饭",
      ),
      verbs: w("庆祝 邀请 包装 看望 打电话 组织 接 送 祝贺 惊喜"),
      adjs: w("热闹 可爱 乱糟糟 骄傲 早 晚 小小的 长大"),
    },
    tools: ["calendar_add", "schedule_create", "notes_add"],
  },
  {
    name: "pets",
    en: {
      nouns: w(
        "kitten puppy leash litter-tray kibble vet vaccination scratching-post aquarium hamster flea-treatment collar microchip grooming treat kennel harness chew-toy tortoise parakeet",
      ),
      verbs: w("feed walk groom train adopt vaccinate brush clip house-train cuddle"),
      adjs: w("playful shy hungry shedding anxious sleepy curious stubborn"),
    },
    zh: {
      nouns: w(
        "小猫 小狗 牵引绳 猫砂盆 猫粮 兽医 疫苗 猫抓板 鱼缸 仓鼠 驱虫 项圈 芯片 美容 零食 狗窝 胸背带 磨牙玩具 乌龟 鹦鹉",
      ),
      verbs: w("喂 遛 梳毛 训练 领养 打疫苗 刷毛 剪指甲 定点 抱抱"),
      adjs: w("调皮 胆小 饿 掉毛 焦虑 困 好奇 倔强"),
    },
    tools: ["schedule_create", "notes_add", "fetch_url"],
  },
  {
    name: "study",
    en: {
      nouns: w(
        "vocabulary flashcard grammar tense exam syllabus lecture essay deadline tutor pronunciation conjugation textbook homework quiz dictionary thesis seminar transcript certificate",
      ),
      verbs: w("memorise revise translate conjugate practise enrol submit cite outline pronounce"),
      adjs: w("irregular formal fluent tricky intermediate advanced oral written"),
    },
    zh: {
      nouns: w(
        "词汇 抽认卡 语法 时态 考试 大纲 讲座 论文 截止 家教 发音 变位 课本 作业 测验 词典 毕业论文 研讨会 成绩单 证书",
      ),
      verbs: w("背 复习 翻译 变位 练习 报名 提交 引用 列提纲 发音"),
      adjs: w("不规则 正式 流利 难 中级 高级 口语 书面"),
    },
    tools: ["files_read", "notes_search", "fetch_url"],
  },
  {
    name: "shopping",
    en: {
      nouns: w(
        "discount voucher parcel delivery return-label warranty blender kettle raincoat sneakers headphones charger cart wishlist size-chart coupon checkout refund order-number courier",
      ),
      verbs: w("order return exchange track compare wrap unbox recommend reorder haggle"),
      adjs: w("cheap sold-out second-hand waterproof wireless oversized refurbished sturdy"),
    },
    zh: {
      nouns: w(
        "折扣 优惠券 包裹 快递 退货单 保修 搅拌机 电水壶 雨衣 球鞋 耳机 充电器 购物车 心愿单 尺码表 满减 结账 退款 订单号 快递员",
      ),
      verbs: w("下单 退货 换货 查物流 比价 包装 拆箱 推荐 回购 砍价"),
      adjs: w("便宜 缺货 二手 防水 无线 宽松 翻新 结实"),
    },
    tools: ["fetch_url", "notes_add", "files_write"],
  },
  {
    name: "weather",
    en: {
      nouns: w(
        "forecast drizzle thunderstorm heatwave frost humidity umbrella pollen windchill sunrise tide snowfall hailstorm smog rainbow barometer breeze fog drought monsoon",
      ),
      verbs: w("forecast pour clear freeze thaw drizzle check shelter dress layer"),
      adjs: w("muggy chilly gusty overcast mild icy sweltering foggy"),
    },
    zh: {
      nouns: w(
        "天气预报 毛毛雨 雷阵雨 热浪 霜冻 湿度 雨伞 花粉 体感温度 日出 潮汐 降雪 冰雹 雾霾 彩虹 气压计 微风 大雾 干旱 梅雨",
      ),
      verbs: w("预报 下 放晴 结冰 解冻 飘 查 避雨 穿 加衣"),
      adjs: w("闷热 冷飕飕 大风 阴天 温和 结冰 酷热 雾蒙蒙"),
    },
    tools: ["fetch_url", "schedule_create"],
  },
];

/** Words between the topic's own in English. */
export const EN_GLUE = {
  times: w(
    "today yesterday tonight this-morning last-week on-Sunday after-work before-lunch at-the-weekend next-month",
  ),
  openers: [
    "Hey,",
    "Quick question:",
    "Okay so",
    "Morning!",
    "Right,",
    "Hmm,",
    "One more thing:",
    "So",
    "Listen,",
    "Honestly",
    "",
    "",
  ],
  asks: [
    "can you help me %v the %n?",
    "what's the best way to %v a %a %n?",
    "how long should I %v the %n for?",
    "is it normal that the %n looks %a?",
    "could you remind me to %v the %n %t?",
    "do you think I should %v the %n or leave it?",
    "can you write down that %p wants to %v the %n %t?",
    "what did we decide about the %a %n?",
  ],
  tells: [
    "I %v the %n %t and it turned out %a.",
    "%p said the %n was %a again.",
    "the %n from %pl cost %k, which felt a bit much.",
    "we finally %v the %n with %p %t.",
    "I've been trying to %v the %n for %d days now.",
    "my %n is %a and I'm not sure why.",
    "%p lent me a %a %n to try.",
  ],
  replies: [
    "Sure. Start by making sure the %n is not %a, then %v it gently.",
    "That happens a lot: a %a %n usually means it needs time.",
    "I'd %v the %n first and check again %t.",
    "A good rule of thumb is %d minutes for every %k of %n.",
    "If %p is around, ask them to hold the %n while you %v it.",
    "You could also try a %a %n instead; it is easier to %v.",
    "I've noted it: %v the %n %t.",
    "Keep an eye on the %n; if it stays %a, %v it again.",
    "Most people %v the %n about %d times before it feels %a.",
  ],
};

export const ZH_GLUE = {
  times: w("今天 昨天 今晚 早上 上周 周日 下班后 午饭前 周末 下个月"),
  openers: ["嗨，", "问一下，", "好吧，", "早！", "对了，", "嗯，", "还有，", "所以", "话说", "", ""],
  asks: [
    "能帮我%v一下%n吗？",
    "%a的%n怎么%v比较好？",
    "%n要%v多久？",
    "%n看起来有点%a，正常吗？",
    "%t提醒我%v%n好吗？",
    "你觉得我该%v%n还是先放着？",
    "帮我记一下，%p想%t%v%n。",
    "我们之前说的那个%a的%n怎么定的？",
  ],
  tells: [
    "我%t%v了%n，结果有点%a。",
    "%p说%n又%a了。",
    "在%pl买的%n花了%k，有点贵。",
    "我们%t终于和%p一起%v了%n。",
    "我已经%d天都在%v%n了。",
    "我的%n有点%a，不知道为什么。",
    "%p借给我一个%a的%n试试。",
  ],
  replies: [
    "好的。先看看%n是不是%a，然后轻轻地%v。",
    "这很常见：%n%a通常说明需要时间。",
    "我会先%v%n，%t再看看。",
    "一般来说每%k的%n大约%d分钟。",
    "如果%p在，可以让他帮你扶着%n再%v。",
    "也可以试试%a一点的%n，更容易%v。",
    "记下了：%t%v%n。",
    "留意一下%n，如果还是%a，就再%v一次。",
    "大多数人要%v%n大概%d次才会觉得%a。",
  ],
};

/** Syllables people's and places' names are made of: a long tail, as in a real history. */
export const EN_NAME_PARTS = {
  first: w("Ma Li Jo Ro Sa Ka Be Ne Da Fi Ha Lu Te Vi Wi Mo Ca El"),
  mid: w("ri na be lo sa ve mi ra de ta li no"),
  last: w("a o e y an el in us ie on"),
  places: w(
    "Market Street, Riverside, the old town, Northgate, the harbour, Elm Park, the station, Hillcrest, Westfield",
  ),
};
export const ZH_NAME_PARTS = {
  surname: [..."王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗"],
  given: [..."伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华玉兰红"],
  places: w("菜市场 河边 老城区 北门 码头 榆树公园 火车站 山顶 西区 商场"),
};

/** What a document attached to a message is about, as a first line. */
export const ATTACHMENT_KINDS = {
  en: ["notes", "report", "minutes", "receipt", "plan", "letter", "manual", "itinerary"],
  zh: ["笔记", "报告", "纪要", "收据", "计划", "信", "说明书", "行程单"],
};
